"""Which JSON Schema keywords a contract may use, and the error that refuses the rest.

A keyword the inspector would not enforce is refused when the contract is built, naming
the keyword and where it sits (a JSON Pointer into the schema): a constraint is never
silently ignored. The values of the keywords that are kept are checked here too, so a
``"minLength": "3"`` is a refusal, not a crash in the middle of a review.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from handoff_gate.gates.contracts.json_schema_values import FORMATS
from handoff_gate.gates.contracts.registry import RegistryError

#: Words that only describe: kept for the reviewer, never checked.
ANNOTATIONS = frozenset({"title", "description", "examples", "$comment"})
#: Allowed only at the top of the document.
ROOT_ONLY = frozenset({"$schema", "$id", "$defs", "definitions"})
STRING = frozenset({"minLength", "maxLength", "pattern", "format"})
NUMBER = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
ARRAY = frozenset({"items", "minItems", "maxItems", "uniqueItems"})
OBJECT = frozenset({"properties", "required", "additionalProperties"})
#: Keywords that combine or pick values; beside them only annotations and a default.
COMBINED = frozenset({"$ref", "anyOf", "oneOf", "allOf"})
CHOICE = frozenset({"enum", "const"})
SUPPORTED = ANNOTATIONS | STRING | NUMBER | ARRAY | OBJECT | COMBINED | CHOICE | {"type", "default"}

TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
#: What each type's own keywords are (a keyword no listed type takes is refused).
BY_TYPE: Mapping[str, frozenset[str]] = {
    "string": STRING,
    "integer": NUMBER,
    "number": NUMBER,
    "array": ARRAY,
    "object": OBJECT,
}

#: The drafts whose meaning of the supported keywords is the one implemented here.
DRAFTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
    }
)


class JsonSchemaError(RegistryError):
    """A JSON Schema that cannot be a contract; the message is one line."""


def pointer(parent: str, *steps: str | int) -> str:
    """A JSON Pointer (``#/properties/a~1b``) one or more steps below ``parent``."""
    for step in steps:
        parent += "/" + str(step).replace("~", "~0").replace("/", "~1")
    return parent


def refuse(where: str, keyword: str, why: str) -> JsonSchemaError:
    """The one-line error naming the keyword and its place."""
    return JsonSchemaError(f"keyword {keyword!r} at {where}: {why}")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_values(node: Mapping[str, Any], where: str, *, root: bool) -> None:
    """Refuse an unsupported keyword, or a supported one whose value is malformed."""
    for key, value in node.items():
        at = pointer(where, key)
        if key in ROOT_ONLY:
            if not root:
                raise refuse(at, key, "allowed only at the top of the schema")
            if key == "$schema" and value not in DRAFTS:
                raise refuse(at, key, "only drafts 2020-12, 2019-09 and 07 are supported")
            continue
        if key not in SUPPORTED:
            raise refuse(at, key, "not supported, so it would not be enforced")
        if key in ("minLength", "maxLength", "minItems", "maxItems") and not _count(value):
            raise refuse(at, key, "must be a non-negative integer")
        if key in NUMBER and not _number(value):
            raise refuse(at, key, "must be a number (draft-4 booleans are not supported)")
        if key == "multipleOf" and not value > 0:
            raise refuse(at, key, "must be greater than 0")
        if key in ("pattern", "description", "title", "$comment") and not isinstance(value, str):
            raise refuse(at, key, "must be a string")
        if key == "format" and value not in FORMATS:
            names = ", ".join(FORMATS)
            raise refuse(at, key, f"format {value!r} is not checked (supported: {names})")
        if key == "uniqueItems" and not isinstance(value, bool):
            raise refuse(at, key, "must be true or false")
        if key in ("anyOf", "oneOf", "allOf", "enum") and not (isinstance(value, list) and value):
            raise refuse(at, key, "must be a non-empty array")
        if key == "properties" and not isinstance(value, dict):
            raise refuse(at, key, "must be an object")
        if key == "required" and not (
            isinstance(value, list)
            and all(isinstance(v, str) for v in value)
            and len(set(value)) == len(value)
        ):
            raise refuse(at, key, "must be an array of distinct strings")
