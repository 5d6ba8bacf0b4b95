"""Which keys a plain JSON Schema admits where, read from the schema once per contract.

Which keys may cross at each object of a valid payload is what the validator evaluated
there; jsonschema-rs reports it (its evaluation's annotations), but building that
report costs several times the validation. For the schemas pipelines write (properties,
required, types, enums, formats, local ``$ref``, ``allOf``, a nullable ``anyOf``,
closed objects, maps, arrays and tuples) the answer follows from the schema alone once
the payload is known valid, because every subschema that applies to a value passed.
This module works that answer out per set of applying subschemas, lazily and once per
contract, for ``schema_check`` to walk a valid payload with.

A schema whose admitted keys depend on which branch passed (``if``, ``dependentSchemas``,
``unevaluated*``, ``patternProperties``, ``contains``, an ``anyOf``/``oneOf`` with two
branches that could take the same kind of value, anchors and dynamic references, an
embedded ``$id``) or a keyword not listed here has no plan (:class:`NoPlan`), and
inspection reads the evaluation instead. Every step is bounded, so a hostile document
only ends in :class:`NoPlan`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from handoff_gate.gates.contracts.json_schema import JsonSchemaContract
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.report import NamedField

__all__ = [
    "ROOT",
    "ArrayPlan",
    "KeyPlan",
    "NoPlan",
    "ObjectPlan",
    "Planner",
    "Pointers",
    "planner_for",
]

#: Keywords that only judge the value they sit on (or only describe it): they never
#: make a key admitted, so a plan can ignore them once the payload is valid.
_JUDGING = frozenset(
    {
        "type", "enum", "const", "format", "minLength", "maxLength", "pattern",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
        "required", "propertyNames", "not", "minContains", "maxContains",
        "title", "description", "default", "examples", "$comment", "deprecated",
        "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
        "discriminator", "nullable", "example", "externalDocs",
        "$schema", "$defs", "definitions", "$ref", "allOf", "anyOf", "oneOf",
        "properties", "additionalProperties", "items",
    }
)  # fmt: skip
#: Beyond those, by draft family: 2020-12 adds these; Draft 7 and older read
#: ``dependencies`` (judged when only lists of names, see :func:`_check_keywords`).
_JUDGING_2020 = _JUDGING | {"prefixItems", "dependentRequired"}
_JUDGING_OLD = _JUDGING | {"dependencies"}
_OLD_DRAFTS = ("draft-07", "draft-06", "draft-04")
#: Words that, anywhere in a document, take it off the plan: they move what ``#`` means.
_ELSEWHERE = ('"$anchor"', '"$dynamicRef"', '"$dynamicAnchor"', '"$recursiveRef"', '"$id"')
#: How many subschemas one set may gather through ``$ref``/``allOf``, and how deep the
#: question "could this branch be an object?" is followed before answering "maybe".
MAX_APPLYING = 64
MAX_BRANCH_DEPTH = 12
#: How many plans a contract keeps (a schema has far fewer shapes than this).
MAX_PLANS = 4096
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly"}
)

Pointers = frozenset[str]
#: The set of one subschema, the document itself: what applies to the payload.
ROOT: Pointers = frozenset({""})


class NoPlan(Exception):
    """The schema (or this part of it) is outside what a plan can answer."""


@dataclass(frozen=True, slots=True)
class KeyPlan:
    """A key at an object: whether it is named, whether its value is free-form (taken
    whole, not walked), and the subschemas that apply to its value."""

    named: bool
    free: bool
    pointers: Pointers


@dataclass(frozen=True, slots=True)
class ObjectPlan:
    """An object under a set of subschemas: its named fields (the rows a reviewer reads),
    a plan per named key, the plan for any other key (``None``: nothing admits it), and
    the unchecked ``format`` of a named key."""

    fields: tuple[NamedField, ...]
    keys: dict[str, KeyPlan]
    other: KeyPlan | None
    formats: dict[str, str]
    defaults: bool
    #: ``additionalProperties: false`` applies: a valid object holds named keys only.
    closed: bool


@dataclass(frozen=True, slots=True)
class ArrayPlan:
    """An array under a set of subschemas: what applies to each leading item (tuples),
    and to every item after them."""

    prefix: tuple[Pointers, ...]
    rest: Pointers

    def at(self, index: int) -> Pointers:
        return self.prefix[index] if index < len(self.prefix) else self.rest


def planner_for(contract: JsonSchemaContract) -> Planner | None:
    """The contract's planner, made once; ``None`` for a document no plan can follow."""
    memo = contract.memo
    try:
        found: Planner | None = memo["#plan"]
        return found
    except KeyError:
        pass
    planner: Planner | None = None
    text = json.dumps(contract.document)
    root_id = 1 if "$id" in contract.document else 0
    if not any(word in text for word in _ELSEWHERE[:-1]) and text.count('"$id"') <= root_id:
        declared = contract.document.get("$schema")
        old = isinstance(declared, str) and any(d in declared for d in _OLD_DRAFTS)
        if not (isinstance(declared, str) and "2019-09" in declared):
            planner = Planner(contract, old=old)
    memo["#plan"] = planner
    return planner


class Planner:
    """Plans for one contract, by the set of subschemas that apply, made on first need."""

    def __init__(self, contract: JsonSchemaContract, *, old: bool) -> None:
        self._contract = contract
        self._old = old
        self._judging = _JUDGING_OLD if old else _JUDGING_2020
        self._objects: dict[Pointers, ObjectPlan | NoPlan] = {}
        self._arrays: dict[Pointers, ArrayPlan | NoPlan] = {}
        self._may: dict[tuple[str, str], bool] = {}
        self._sealed: bool | None = None

    def sealed(self) -> bool:
        """Whether every object a valid payload can hold is closed, with no default and
        no unchecked format: then a valid payload without empty values gives no
        finding and drops nothing, and needs no walk. Worked out once."""
        if self._sealed is None:
            try:
                self._sealed = not self._contract.unknown_formats and self._all_closed()
            except NoPlan:
                self._sealed = False
        return self._sealed

    def _all_closed(self) -> bool:
        todo: list[tuple[str, Pointers]] = [("object", ROOT)]
        seen: set[tuple[str, Pointers]] = set()
        while todo:
            kind, pointers = todo.pop()
            if (kind, pointers) in seen:
                continue
            seen.add((kind, pointers))
            if len(seen) > MAX_PLANS:
                return False
            if not all(self._may_be(at, kind) for at in pointers):
                continue  # no valid value of this kind here
            below: list[Pointers] = []
            if kind == "object":
                plan = self.object_plan(pointers)
                if not plan.closed or plan.defaults or plan.formats:
                    return False
                below = [k.pointers for k in plan.keys.values() if not k.free]
            else:
                items = self.array_plan(pointers)
                below = [*items.prefix, items.rest]
            todo.extend((k, p) for p in below for k in ("object", "array"))
        return True

    def object_plan(self, pointers: Pointers) -> ObjectPlan:
        found = self._objects.get(pointers)
        if found is None:
            found = self._remember(self._objects, pointers, self._object)
        if type(found) is NoPlan:
            raise found
        return found  # type: ignore[return-value]

    def array_plan(self, pointers: Pointers) -> ArrayPlan:
        found = self._arrays.get(pointers)
        if found is None:
            found = self._remember(self._arrays, pointers, self._array)
        if type(found) is NoPlan:
            raise found
        return found  # type: ignore[return-value]

    @staticmethod
    def _remember(memo: dict[Pointers, Any], pointers: Pointers, make: Any) -> Any:
        """A plan, or the reason there is none: either is kept, so a part of a schema
        outside the plans costs its look once, not per payload."""
        try:
            found = make(pointers)
        except NoPlan as exc:
            found = exc
        if len(memo) < MAX_PLANS:
            memo[pointers] = found
        return found

    def _object(self, pointers: Pointers) -> ObjectPlan:
        applying = list(self._applying(pointers, "object"))
        fields: dict[str, NamedField] = {}
        naming: dict[str, list[str]] = {}
        formats: dict[str, str] = {}
        extras: list[tuple[str, dict[str, Any]]] = []
        any_key = closed = False
        unknown = self._contract.unknown_formats
        for at, schema in applying:
            properties = schema.get("properties")
            if isinstance(properties, dict):
                required = schema.get("required")
                required = required if isinstance(required, list) else []
                for key, sub in properties.items():
                    fields.setdefault(key, _field(key, sub, key in required))
                    where = f"{at}/properties/{_escape(key)}"
                    naming.setdefault(key, []).append(where)
                    fmt = unknown.get(where)
                    if fmt is not None:
                        formats[key] = fmt
            extra = schema.get("additionalProperties")
            closed = closed or extra is False
            if extra is True:
                any_key = True
            elif isinstance(extra, dict):
                extras.append((f"{at}/additionalProperties", schema))
        keys = {
            key: self._key(True, where, [e for e, s in extras if key not in _names(s)])
            for key, where in naming.items()
        }
        other: KeyPlan | None = None
        if extras:
            other = self._key(False, [], [e for e, _ in extras])
        elif any_key:
            other = KeyPlan(named=False, free=True, pointers=frozenset())
        defaults = any(f.default is not ABSENT for f in fields.values())
        return ObjectPlan(tuple(fields.values()), keys, other, formats, defaults, closed)

    def _key(self, named: bool, naming: list[str], extras: list[str]) -> KeyPlan:
        """A key's plan: it is free-form only if every schema applying to it is."""
        where = [*naming, *extras]
        free = all(_constrains_nothing(self._contract.subschema(p)) for p in where)
        return KeyPlan(named=named, free=free, pointers=frozenset(where))

    def _array(self, pointers: Pointers) -> ArrayPlan:
        prefix: list[set[str]] = []
        rest: set[str] = set()
        tails: list[tuple[int, str]] = []
        for at, schema in self._applying(pointers, "array"):
            leading = schema.get("prefixItems")
            count = len(leading) if isinstance(leading, list) else 0
            while len(prefix) < count:
                prefix.append(set())
            for i in range(count):
                prefix[i].add(f"{at}/prefixItems/{i}")
            items = schema.get("items")
            if isinstance(items, list):
                raise NoPlan("items as a list (a Draft 7 tuple)")
            if items is not None:
                tails.append((count, f"{at}/items"))
        for count, where in tails:
            rest.add(where)
            for i in range(count, len(prefix)):
                prefix[i].add(where)
        return ArrayPlan(tuple(frozenset(p) for p in prefix), frozenset(rest))

    def _applying(self, pointers: Pointers, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every subschema that applies to a valid value of ``kind`` ("object" or
        "array") under ``pointers``, through ``$ref``, ``allOf`` and the one branch of
        an ``anyOf``/``oneOf`` that could take such a value."""
        todo = sorted(pointers, reverse=True)
        seen: set[str] = set()
        while todo:
            at = todo.pop()
            if at in seen:
                continue
            seen.add(at)
            if len(seen) > MAX_APPLYING:
                raise NoPlan("too many subschemas apply to one value")
            schema = self._contract.subschema(at)
            if schema is True or schema == {}:
                continue
            if type(schema) is not dict:
                raise NoPlan(f"no schema object at {at!r}")
            ref = schema.get("$ref")
            nexts = [] if ref is None else [_target(ref)]
            if ref is not None and self._old:  # Draft 7 and older: $ref replaces its siblings
                todo.extend(nexts)
                continue
            self._check_keywords(schema)
            yield at, schema
            nexts.extend(f"{at}/allOf/{i}" for i in range(len(_parts(schema, "allOf"))))
            for word in ("anyOf", "oneOf"):
                branches = _parts(schema, word)
                if not branches:
                    continue
                could = [i for i in range(len(branches)) if self._may_be(f"{at}/{word}/{i}", kind)]
                if len(could) != 1:
                    raise NoPlan(f"{word} at {at!r} has {len(could)} branches for an {kind}")
                nexts.append(f"{at}/{word}/{could[0]}")
            todo.extend(reversed(nexts))  # in the document's order, depth first

    def _check_keywords(self, schema: dict[str, Any]) -> None:
        for word, value in schema.items():
            if word not in self._judging and not word.startswith("x-"):
                raise NoPlan(f"keyword {word!r}")
            if word == "dependencies" and not all(isinstance(v, list) for v in value.values()):
                raise NoPlan("dependencies naming schemas")

    def _may_be(self, at: str, kind: str, depth: int = 0) -> bool:
        """Whether a valid value of ``kind`` could pass the subschema at ``at``: ``False``
        only when its ``type``, ``const`` or ``enum`` (followed through ``$ref``,
        ``allOf``, ``anyOf``, ``oneOf``) rule it out. Remembered, and "maybe" past
        :data:`MAX_BRANCH_DEPTH`."""
        if depth > MAX_BRANCH_DEPTH:
            return True
        known = self._may.get((at, kind))
        if known is not None:
            return known
        self._may[(at, kind)] = True  # a loop back here answers "maybe"
        answer = self._may_be_here(at, kind, depth)
        self._may[(at, kind)] = answer
        return answer

    def _may_be_here(self, at: str, kind: str, depth: int) -> bool:
        schema = self._contract.subschema(at)
        if schema is False:
            return False
        if type(schema) is not dict:
            return True
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            if not self._may_be(_target(ref), kind, depth + 1):
                return False
            if self._old:
                return True
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else declared
        if isinstance(types, list) and kind not in types:
            return False
        python = dict if kind == "object" else list
        if "const" in schema and type(schema["const"]) is not python:
            return False
        enum = schema.get("enum")
        if isinstance(enum, list) and not any(type(v) is python for v in enum):
            return False
        parts = _parts(schema, "allOf")
        if not all(self._may_be(f"{at}/allOf/{i}", kind, depth + 1) for i in range(len(parts))):
            return False
        for word in ("anyOf", "oneOf"):
            branches = _parts(schema, word)
            if branches and not any(
                self._may_be(f"{at}/{word}/{i}", kind, depth + 1) for i in range(len(branches))
            ):
                return False
        return True


def _names(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _parts(schema: dict[str, Any], word: str) -> list[Any]:
    value = schema.get(word)
    return value if isinstance(value, list) else []


def _target(ref: Any) -> str:
    """The JSON Pointer a local ``$ref`` names (``#`` or ``#/...``); any other (an
    anchor, a URI, a percent-escape) has no plan."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")) or "%" in ref:
        raise NoPlan(f"$ref {ref!r}")
    return ref[1:]


def _field(key: str, schema: Any, required: bool) -> NamedField:
    if not isinstance(schema, dict):
        return NamedField(key, required=required)
    about = schema.get("description")
    return NamedField(
        key,
        description=about if isinstance(about, str) else "",
        required=required,
        default=schema.get("default", ABSENT),
    )


def _constrains_nothing(schema: Any) -> bool:
    return schema is True or (type(schema) is dict and schema.keys() <= _ANNOTATIONS)


def _escape(step: str) -> str:
    return step.replace("~", "~0").replace("/", "~1")
