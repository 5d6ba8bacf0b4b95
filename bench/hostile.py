"""The JSON Schema shapes that once made the gate explode, with a payload each: shared by
the benchmark (what each costs) and the tests (what each is judged)."""

from __future__ import annotations

import json
from typing import Any


def closed(v: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """``v`` as the one required property of a closed object (handoffs are objects)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"v": v},
        "required": ["v"],
        "additionalProperties": False,
    }
    if defs is not None:
        schema["$defs"] = defs
    return schema


def nested_any_of(levels: int) -> dict[str, Any]:
    """Each level a choice between the next level and an object of two of it (the old
    translation doubled its work per level)."""
    defs: dict[str, Any] = {f"d{levels}": {"type": "string"}}
    for n in range(levels - 1, -1, -1):
        deeper = {"$ref": f"#/$defs/d{n + 1}"}
        pair = {"type": "object", "properties": {"a": deeper, "b": deeper}}
        defs[f"d{n}"] = {"anyOf": [deeper, pair]}
    return closed({"$ref": "#/$defs/d0"}, defs)


def chained(hops: int) -> dict[str, Any]:
    """``$ref`` to ``$ref`` ``hops`` times (the old translation recursed per hop)."""
    defs: dict[str, Any] = {f"d{n}": {"$ref": f"#/$defs/d{n + 1}"} for n in range(hops)}
    defs[f"d{hops}"] = {"type": "integer"}
    return closed({"$ref": "#/$defs/d0"}, defs)


def many_options(options: int) -> dict[str, Any]:
    """An array whose items are a ``oneOf`` of ``options`` objects."""
    choices = [
        {"type": "object", "properties": {"k": {"const": n}}, "required": ["k"]}
        for n in range(options)
    ]
    return closed({"type": "array", "items": {"oneOf": choices}})


def any_of_items(levels: int) -> dict[str, Any]:
    """Each level a choice between the next level and an array of it: every branch of
    every level can pass, so an evaluation that expands them all doubles per level
    (issue 41: 30 levels and a 30-byte payload took 27 s and 4 GB in ``check``)."""
    defs: dict[str, Any] = {f"d{levels}": {"type": ["string", "array"]}}
    for n in range(levels - 1, -1, -1):
        deeper = {"$ref": f"#/$defs/d{n + 1}"}
        defs[f"d{n}"] = {"anyOf": [deeper, {"type": "array", "items": deeper}]}
    return closed({"$ref": "#/$defs/d0"}, defs)


#: The 30-level case, with its 30-byte payload.
ANY_OF_ITEMS_30 = (any_of_items(30), {"v": json.loads("[" * 13 + '"x"' + "]" * 13)})

#: (name, schema, a payload it accepts)
SHAPES: list[tuple[str, dict[str, Any], Any]] = [
    ("anyOf_ref_18", nested_any_of(18), {"v": {"a": "x", "b": {"a": "y"}}}),
    ("defs_150", chained(150), {"v": 7}),
    ("refs_600", chained(600), {"v": 7}),
    ("oneOf_40x20000", many_options(40), {"v": [{"k": n % 40} for n in range(20_000)]}),
    ("anyOf_items_30", *ANY_OF_ITEMS_30),
]
