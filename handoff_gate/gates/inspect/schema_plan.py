"""Which keys a JSON Schema admits where, read from the schema once per contract.

Which keys are admitted is read from the schema, never from which branch happened to
pass: every subschema that can apply to a value along its path is gathered into one set
(the keywords followed are listed in docs/protocol.md), so a key the schema names
anywhere on the path is never dropped. What *must* apply (``$ref``, ``allOf``, the one
branch that could take the value's kind) is kept apart from what *may* (a pointer
prefixed ``?``): only what must apply gives the rows, the defaults and the "closed all
the way down" shortcut.

Work is bounded (:data:`MAX_APPLYING`, :data:`MAX_PLANS`, :data:`MAX_STEPS`); past a
bound, or where a reference does not land in the document, there is no plan
(:class:`NoPlan`) and inspection blocks rather than guess. The validator's evaluation
output, exponential in nested ``anyOf``, is never asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs

from handoff_gate.gates.contracts.json_schema import JsonSchemaContract
from handoff_gate.gates.inspect.schema_refs import RefIndex, index_of
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.fieldpaths import pointer_step
from handoff_gate.gates.vocab.report import NamedField

#: Subschemas per set, plans per contract, steps per contract.
MAX_APPLYING = 4096
MAX_PLANS = 8192
MAX_STEPS = 400_000
#: How deep the question "could this branch be an object?" is followed before
#: answering "maybe".
MAX_BRANCH_DEPTH = 12
MAX_KEYS_REMEMBERED = 4096
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly"}
)
_MAY = "?"

#: A set of subschemas by JSON Pointer; one prefixed ``?`` may apply, the rest must.
Pointers = frozenset[str]
ROOT: Pointers = frozenset({""})
#: The pointer :meth:`RefIndex.resolve` gives for a known metaschema.
_META = "#meta"
#: What applies to an array item whose schemas all constrain nothing (``items: {}``,
#: ``items: true``, a metaschema): the item is taken whole, never walked.
FREE: Pointers = frozenset({_META})


class NoPlan(Exception):
    """The gate cannot tell which keys this part of the schema admits."""


class OverBudget(NoPlan):
    """Working it out would take more than the bounds allow."""


@dataclass(frozen=True, slots=True)
class KeyPlan:
    """``free``: the value is taken whole, not walked."""

    named: bool
    free: bool
    pointers: Pointers


@dataclass(slots=True)
class ObjectPlan:
    """``fields``: the rows a reviewer reads; ``other``: the plan for any other key
    (``None``: nothing admits it); ``formats``: a named key's unchecked ``format``."""

    fields: tuple[NamedField, ...]
    keys: dict[str, KeyPlan]
    other: KeyPlan | None
    formats: dict[str, str]
    defaults: bool
    #: A subschema that must apply closes the object: a valid one holds named keys only.
    closed: bool
    #: Fields only a branch names: shown when the object holds them.
    branch_fields: tuple[NamedField, ...] = ()
    #: ``patternProperties`` and the like apply: :meth:`Planner.unnamed` answers per key.
    by_key: bool = False
    unnamed_keys: dict[str, KeyPlan | None] = field(default_factory=dict)
    #: The subschemas gathered (pointer, schema, must), for the keys' plans.
    applying: tuple[tuple[str, dict[str, Any], bool], ...] = ()
    #: A reference to a metaschema applies: any key, taken whole.
    anything: bool = False


@dataclass(frozen=True, slots=True)
class ArrayPlan:
    """What applies to each leading item (tuples), and to every item after them."""

    prefix: tuple[Pointers, ...]
    rest: Pointers

    def at(self, index: int) -> Pointers:
        return self.prefix[index] if index < len(self.prefix) else self.rest


def planner_for(contract: JsonSchemaContract) -> Planner:
    memo = contract.memo
    found: Planner | None = memo.get("#plan")
    if found is None:
        found = memo["#plan"] = Planner(contract)
    return found


@dataclass(slots=True)
class _Gathered:
    """Subschemas in the order met, each with whether it must apply; ``anything``: a
    metaschema applies."""

    schemas: dict[str, bool] = field(default_factory=dict)
    anything: bool = False


class Planner:
    """Plans for one contract, by the set of subschemas that apply, made on first need."""

    def __init__(self, contract: JsonSchemaContract) -> None:
        self._contract = contract
        self._index: RefIndex = index_of(contract.document)
        self._old = self._index.old
        self._objects: dict[Pointers, ObjectPlan | NoPlan] = {}
        self._arrays: dict[Pointers, ArrayPlan | NoPlan] = {}
        self._may: dict[tuple[str, str], bool] = {}
        self._patterns: dict[str, Any] = {}
        self._sealed: bool | None = None
        self._steps = 0

    def sealed(self) -> bool:
        """Every object a valid payload can hold is closed, with no default or unchecked
        format: a valid payload without empty values then needs no walk."""
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
            if pointers is FREE:  # taken whole: nothing in it is walked or found
                continue
            must = [p for p in pointers if not p.startswith(_MAY)]
            if not all(self._may_be(at, kind) for at in must):
                continue  # no valid value of this kind here
            below: list[Pointers] = []
            if kind == "object":
                plan = self.object_plan(pointers)
                if not plan.closed or plan.defaults or plan.formats or plan.by_key:
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
        if isinstance(found, NoPlan):
            raise found
        return found

    def array_plan(self, pointers: Pointers) -> ArrayPlan:
        found = self._arrays.get(pointers)
        if found is None:
            found = self._remember(self._arrays, pointers, self._array)
        if isinstance(found, NoPlan):
            raise found
        return found

    def unnamed(self, plan: ObjectPlan, key: str) -> KeyPlan | None:
        """A key no subschema names, where what admits it depends on the key (a pattern)."""
        if not plan.by_key:
            return plan.other
        try:
            return plan.unnamed_keys[key]
        except KeyError:
            pass
        found = self._key_for(plan, key, named=False)
        if len(plan.unnamed_keys) < MAX_KEYS_REMEMBERED:
            plan.unnamed_keys[key] = found
        return found

    def _remember(self, memo: dict[Pointers, Any], pointers: Pointers, make: Any) -> Any:
        """The reason there is no plan is kept too: it costs its look once, not per payload."""
        if len(memo) >= MAX_PLANS:
            raise OverBudget(f"the contract has more than {MAX_PLANS} shapes of value")
        try:
            found = make(pointers)
        except NoPlan as exc:
            found = exc
        memo[pointers] = found
        return found

    # -- gathering what applies -------------------------------------------------------

    def _gather(self, pointers: Pointers, kind: str) -> _Gathered:
        """What can apply to a valid value of ``kind`` under ``pointers``, and whether it must."""
        out = _Gathered()
        todo = [(p[1:], False) if p.startswith(_MAY) else (p, True) for p in sorted(pointers)]
        todo.reverse()
        seen = out.schemas
        while todo:
            at, must = todo.pop()
            if at in seen and (seen[at] or not must):
                continue
            self._steps += 1
            if self._steps > MAX_STEPS:
                raise OverBudget(f"working out the contract's keys took over {MAX_STEPS} steps")
            if at == _META:
                out.anything = True
                continue
            schema = self._contract.subschema(at)
            if schema is True or schema is False or schema == {}:
                continue
            if type(schema) is not dict:
                raise NoPlan(f"no schema at {at!r}")
            seen[at] = must
            if len(seen) > MAX_APPLYING:
                raise OverBudget(f"over {MAX_APPLYING} subschemas apply to one value")
            todo.extend(reversed(self._next(at, schema, kind, must)))
        if self._old:  # Draft 7 and older: a schema with $ref is only its $ref
            for at in [a for a in seen if "$ref" in self._contract.subschema(a)]:
                del seen[at]
        return out

    def _next(self, at: str, schema: dict[str, Any], kind: str, must: bool) -> list[Any]:
        """What applies beside ``schema`` to the same value, in the document's order."""
        nexts: list[tuple[str, bool]] = []
        for word in ("$ref", "$dynamicRef", "$recursiveRef"):
            ref = schema.get(word)
            if isinstance(ref, str):
                nexts.extend(self._targets(at, word, ref, must))
        if self._old and "$ref" in schema:
            return nexts
        nexts.extend((f"{at}/allOf/{i}", must) for i in range(len(_parts(schema, "allOf"))))
        for word in ("anyOf", "oneOf"):
            count = len(_parts(schema, word))
            could = [i for i in range(count) if self._may_be(f"{at}/{word}/{i}", kind)]
            nexts.extend((f"{at}/{word}/{i}", must and could == [i]) for i in range(count))
        for word in ("if", "then", "else", "not"):
            if word in schema:
                nexts.append((f"{at}/{word}", False))
        for word in ("dependentSchemas", "dependencies"):
            value = schema.get(word)
            if isinstance(value, dict):
                nexts.extend(
                    (f"{at}/{word}/{pointer_step(k)}", False)
                    for k, v in value.items()
                    if isinstance(v, dict | bool)
                )
        return nexts

    def _targets(self, at: str, word: str, ref: str, must: bool) -> list[tuple[str, bool]]:
        index = self._index
        target = index.resolve(at, ref)
        if target is None:
            raise NoPlan(f"{word} {ref[:200]!r} does not land in the document")
        if word == "$ref":
            return [(target, must)]
        if word == "$recursiveRef":
            # Any resource root that declares $recursiveAnchor may stand in for "#".
            others = [p for p in index.recursive if p != target]
            return [(target, must and not others), *((p, False) for p in others)]
        name = ref.rpartition("#")[2]
        others = [p for p in index.dynamic.get(name, ()) if p != target]
        return [(target, must and not others), *((p, False) for p in others)]

    # -- objects ------------------------------------------------------------------------

    def _object(self, pointers: Pointers) -> ObjectPlan:
        gathered = self._gather(pointers, "object")
        subschema = self._contract.subschema
        applying = [(at, subschema(at), must) for at, must in gathered.schemas.items()]
        fields: dict[str, NamedField] = {}
        branch_fields: dict[str, NamedField] = {}
        names: dict[str, None] = {}
        formats: dict[str, str] = {}
        unknown = self._contract.unknown_formats
        closed = by_key = False
        for at, schema, must in applying:
            required = schema.get("required")
            required = required if isinstance(required, list) else []
            properties = schema.get("properties")
            if isinstance(properties, dict):
                for key, sub in properties.items():
                    names[key] = None
                    if must:
                        fields.setdefault(key, named_field(key, sub, key in required))
                    else:
                        branch_fields.setdefault(
                            key, named_field(key, sub, False, with_default=False)
                        )
                    fmt = unknown.get(f"{at}/properties/{pointer_step(key)}")
                    if fmt is not None:
                        formats[key] = fmt
            for name in _listed_names(schema):
                names.setdefault(name, None)
            patterns = schema.get("patternProperties")
            if isinstance(patterns, dict) and patterns:
                by_key = True
            if must and schema.get("additionalProperties") is False:
                closed = closed or not (isinstance(patterns, dict) and patterns)
        for key in fields:
            branch_fields.pop(key, None)
        plan = ObjectPlan(
            fields=tuple(fields.values()),
            keys={},
            other=None,
            formats=formats,
            defaults=any(f.default is not ABSENT for f in fields.values()),
            closed=closed,
            branch_fields=tuple(branch_fields.values()),
            by_key=by_key,
            applying=tuple(applying),
            anything=gathered.anything,
        )
        for key in names:
            found = self._key_for(plan, key, named=True)
            if found is None:  # a named key always has a plan; never guess
                raise NoPlan(f"no plan for the named key {key[:100]!r}")
            plan.keys[key] = found
        if not by_key:
            plan.other = self._key_for(plan, None, named=False)
        return plan

    def _key_for(self, plan: ObjectPlan, key: str | None, *, named: bool) -> KeyPlan | None:
        """``key=None``: any key named nowhere, when no pattern tells keys apart. A key
        nothing takes, named nowhere, is not admitted (``None``)."""
        where: list[str] = []
        for at, schema, must in plan.applying:
            mark = "" if must else _MAY
            properties = schema.get("properties")
            own = isinstance(properties, dict) and key is not None and key in properties
            if own and key is not None:
                where.append(f"{mark}{at}/properties/{pointer_step(key)}")
            matched = False
            patterns = schema.get("patternProperties")
            if isinstance(patterns, dict) and key is not None:
                for pattern in patterns:
                    if self._matches(pattern, key):
                        matched = True
                        where.append(f"{mark}{at}/patternProperties/{pointer_step(pattern)}")
            if own or matched:
                continue
            for word in ("additionalProperties", "unevaluatedProperties"):
                if word in schema and schema[word] is not False:
                    where.append(f"{mark}{at}/{word}")
        if not where and not named and not plan.anything:
            return None
        free = plan.anything or all(
            _constrains_nothing(self._contract.subschema(p.removeprefix(_MAY))) for p in where
        )
        return KeyPlan(named=named, free=free, pointers=frozenset(where))

    def _matches(self, pattern: str, key: str) -> bool:
        """As the validator reads it (ECMA 262)."""
        check = self._patterns.get(pattern)
        if check is None:
            try:
                check = jsonschema_rs.validator_for({"patternProperties": {pattern: False}})
            except Exception as exc:  # the contract compiled, so this is not expected
                raise NoPlan(f"pattern {pattern[:100]!r}: {exc}") from exc
            if len(self._patterns) < MAX_KEYS_REMEMBERED:
                self._patterns[pattern] = check
        return not check.is_valid({key: None})

    # -- arrays -------------------------------------------------------------------------

    def _array(self, pointers: Pointers) -> ArrayPlan:
        gathered = self._gather(pointers, "array")
        if gathered.anything:
            return ArrayPlan((), FREE)
        prefix: list[set[str]] = []
        every: set[str] = set()
        tails: list[tuple[int, str]] = []
        for at, must in gathered.schemas.items():
            schema = self._contract.subschema(at)
            mark = "" if must else _MAY
            leading = schema.get("prefixItems")
            items = schema.get("items")
            if isinstance(items, list):  # Draft 2019-09 and older: a tuple
                leading, items = items, schema.get("additionalItems")
                word, tail = "items", "additionalItems"
            else:
                word, tail = "prefixItems", "items"
            count = len(leading) if isinstance(leading, list) else 0
            while len(prefix) < count:
                prefix.append(set())
            for i in range(count):
                prefix[i].add(f"{mark}{at}/{word}/{i}")
            if items is not None and items is not False:
                tails.append((count, f"{mark}{at}/{tail}"))
            for word in ("contains", "unevaluatedItems"):
                if word in schema and schema[word] is not False:
                    every.add(f"{_MAY}{at}/{word}")
        rest = set(every)
        for count, where in tails:
            rest.add(where)
            for i in range(count, len(prefix)):
                prefix[i].add(where)
        for p in prefix:
            p.update(every)
        return ArrayPlan(tuple(self._sealed_set(p) for p in prefix), self._sealed_set(rest))

    def _sealed_set(self, pointers: set[str]) -> Pointers:
        """:data:`FREE` when every schema in it constrains nothing (an empty set is not:
        nothing there admits a key)."""
        subschema = self._contract.subschema
        if pointers and all(
            p.removeprefix(_MAY) == _META or _constrains_nothing(subschema(p.removeprefix(_MAY)))
            for p in pointers
        ):
            return FREE
        return frozenset(pointers)

    # -- could a branch take this kind of value? -----------------------------------------

    def _may_be(self, at: str, kind: str, depth: int = 0) -> bool:
        """``False`` only when ``type``, ``const`` or ``enum`` (through ``$ref``, ``allOf``,
        ``anyOf``, ``oneOf``) rule a valid value of ``kind`` out."""
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
        if isinstance(ref, str):
            target = self._index.resolve(at, ref)
            if target is not None and target != _META and not self._may_be(target, kind, depth + 1):
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


def _listed_names(schema: dict[str, Any]) -> Iterator[str]:
    """Keys a schema names without a subschema (``required``, an object ``const``...)."""
    required = schema.get("required")
    if isinstance(required, list):
        yield from (k for k in required if isinstance(k, str))
    pinned = [schema["const"]] if "const" in schema else []
    enum = schema.get("enum")
    pinned.extend(enum if isinstance(enum, list) else ())
    for value in pinned:
        if isinstance(value, dict):
            yield from value
    for word in ("dependentRequired", "dependencies"):
        value = schema.get(word)
        if not isinstance(value, dict):
            continue
        for key, names in value.items():
            if isinstance(names, list):
                yield key
                yield from (k for k in names if isinstance(k, str))


def _parts(schema: dict[str, Any], word: str) -> list[Any]:
    value = schema.get(word)
    return value if isinstance(value, list) else []


def named_field(key: str, schema: Any, required: bool, with_default: bool = True) -> NamedField:
    if not isinstance(schema, Mapping):
        return NamedField(key, required=required)
    about = schema.get("description")
    return NamedField(
        key,
        description=about if isinstance(about, str) else "",
        required=required,
        default=schema.get("default", ABSENT) if with_default else ABSENT,
    )


def _constrains_nothing(schema: Any) -> bool:
    return schema is True or (type(schema) is dict and schema.keys() <= _ANNOTATIONS)
