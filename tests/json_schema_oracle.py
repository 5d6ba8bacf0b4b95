"""What a JSON Schema names along a payload's paths, worked out without the gate's code.

The oracle for the delivery tests: references are resolved by ``referencing`` (the
library the reference validator, ``jsonschema``, resolves with), every applicator is
followed whichever branch passed, and each object of a payload gets the set of keys the
schema names there (``properties``, ``required``). A key in that set must never be
missing from a delivery whose parent object was delivered. Patterns are matched with
Python's ``re`` (a pattern it cannot read names nothing here), so the oracle is a lower
bound of what the gate must keep, never an upper one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]
from referencing import Registry
from referencing._core import Resolver
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012, specification_with

__all__ = ["is_within", "named_keys_missing"]

_ROOT = "urn:handoff-gate-oracle:root"
_SAME_PLACE = ("allOf", "anyOf", "oneOf")
_ONE_SAME_PLACE = ("if", "then", "else", "not")
#: How many (subschema, place) pairs the oracle looks at for one payload.
LIMIT = 20_000

_State = tuple[Any, Resolver[Any]]


def _resolver(document: dict[str, Any]) -> Resolver[Any]:
    spec = specification_with(document.get("$schema", ""), default=DRAFT202012)
    resource = spec.create_resource(document)
    registry: Registry[Any] = REGISTRY.with_resource(_ROOT, resource)
    own = resource.id()
    if own:
        registry = registry.with_resource(own, resource)
    return registry.resolver(own or _ROOT)


def _old(document: dict[str, Any]) -> bool:
    declared = str(document.get("$schema", ""))
    return any(d in declared for d in ("draft-07", "draft-06", "draft-04"))


def _expand(states: list[_State], old: bool) -> list[_State]:
    """Every subschema applying at the same place, through references and branches."""
    out: list[_State] = []
    seen: set[int] = set()
    todo = list(states)
    while todo and len(out) < LIMIT:
        schema, resolver = todo.pop()
        if not isinstance(schema, dict) or id(schema) in seen:
            continue
        seen.add(id(schema))
        spec = specification_with(schema.get("$schema", ""), default=DRAFT202012)
        if "$id" in schema or "id" in schema:
            resolver = resolver.in_subresource(spec.create_resource(schema))
        for word in ("$ref", "$dynamicRef", "$recursiveRef"):
            ref = schema.get(word)
            if isinstance(ref, str):
                try:
                    found = resolver.lookup(ref)
                except Unresolvable:
                    continue
                todo.append((found.contents, found.resolver))
        if old and "$ref" in schema:
            continue
        out.append((schema, resolver))
        for word in _SAME_PLACE:
            parts = schema.get(word)
            if isinstance(parts, list):
                todo.extend((p, resolver) for p in parts)
        for word in _ONE_SAME_PLACE:
            if word in schema:
                todo.append((schema[word], resolver))
        for word in ("dependentSchemas", "dependencies"):
            value = schema.get(word)
            if isinstance(value, dict):
                todo.extend((v, resolver) for v in value.values() if isinstance(v, dict))
    return out


def _matches(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return False


def _at_key(states: list[_State], key: str) -> list[_State]:
    out: list[_State] = []
    for schema, resolver in states:
        properties = schema.get("properties")
        own = isinstance(properties, dict) and key in properties
        if own:
            out.append((properties[key], resolver))
        patterns = schema.get("patternProperties")
        matched = [
            (sub, resolver)
            for pattern, sub in (patterns.items() if isinstance(patterns, dict) else ())
            if _matches(pattern, key)
        ]
        out.extend(matched)
        if not own and not matched:
            for word in ("additionalProperties", "unevaluatedProperties"):
                if word in schema:
                    out.append((schema[word], resolver))
    return out


def _at_index(states: list[_State], index: int) -> list[_State]:
    out: list[_State] = []
    for schema, resolver in states:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list):
            prefix, items = items, schema.get("additionalItems")
        if isinstance(prefix, list) and index < len(prefix):
            out.append((prefix[index], resolver))
        elif items is not None:
            out.append((items, resolver))
        for word in ("contains", "unevaluatedItems"):
            if word in schema:
                out.append((schema[word], resolver))
    return out


def _named(states: list[_State]) -> set[str]:
    names: set[str] = set()
    for schema, _ in states:
        properties = schema.get("properties")
        if isinstance(properties, dict):
            names.update(properties)
        required = schema.get("required")
        if isinstance(required, list):
            names.update(k for k in required if isinstance(k, str))
    return names


def named_keys_missing(document: dict[str, Any], sent: Any, delivered: Any) -> list[str]:
    """The paths of keys the schema names at their object that the delivery lacks
    while it holds the object: each one a key dropped that must not have been."""
    old = _old(document)
    missing: list[str] = []
    todo: list[tuple[Any, Any, list[_State], str]] = [
        (sent, delivered, [(document, _resolver(document))], "")
    ]
    while todo:
        node, out, states, path = todo.pop()
        here = _expand(states, old)
        if isinstance(node, dict) and isinstance(out, dict):
            names = _named(here)
            for key, value in node.items():
                if key not in out:
                    if key in names:
                        missing.append(f"{path}/{key}")
                    continue
                todo.append((value, out[key], _at_key(here, key), f"{path}/{key}"))
        elif isinstance(node, list) and isinstance(out, list):
            for i, (value, kept) in enumerate(zip(node, out, strict=False)):
                todo.append((value, kept, _at_index(here, i), f"{path}/{i}"))
    return missing


def is_within(delivered: Any, sent: Any) -> bool:
    """Whether ``delivered`` is ``sent`` with keys left out and nothing else changed."""
    return not list(_outside(delivered, sent))


def _outside(delivered: Any, sent: Any) -> Iterator[None]:
    if isinstance(delivered, dict):
        if not isinstance(sent, dict) or not delivered.keys() <= sent.keys():
            yield None
            return
        for key, value in delivered.items():
            yield from _outside(value, sent[key])
    elif isinstance(delivered, list):
        if not isinstance(sent, list) or len(delivered) != len(sent):
            yield None
            return
        for a, b in zip(delivered, sent, strict=True):
            yield from _outside(a, b)
    elif type(delivered) is not type(sent) or delivered != sent:
        yield None
