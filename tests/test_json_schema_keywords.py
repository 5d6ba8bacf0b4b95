"""JSON Schema keywords in a contract, checked; the few documents the gate refuses.

A row of ``SUPPORTED`` is a property schema, a value it accepts and one it rejects (with
the code and path that rejection must carry): the keywords a hand-written translation
once refused are here too, judged by the validator. A row of ``REFUSED`` is a document
the gate will not use (invalid for its draft, naming something outside itself, nested
past the bound), refused with one line saying why. The official test suite runs in
``test_json_schema_suite.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS

from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaError,
    contract_from_json_schema,
    read_json_schema,
    schema_sha256,
)
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.gates.view.fields import OPTIONAL_ABSENT, field_rows
from handoff_gate.gates.vocab.report import FieldState, Report


def contract(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    required = more.pop("required", list(properties))
    return {"type": "object", "properties": properties, "required": required, **more}


def check(schema: dict[str, Any], payload: Any) -> Report:
    model = contract_from_json_schema(schema)
    return inspect(json.dumps(payload).encode(), "t/v1", {"t/v1": model})


def codes(report: Report) -> list[tuple[str, str, str]]:
    return [(f.code.value, f.path, f.severity.value) for f in report.findings]


S = {"type": "string"}
OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
#: (name, property schema, accepted value, rejected value, path of the rejection)
SUPPORTED: list[tuple[str, dict[str, Any], Any, Any, str]] = [
    ("type-string", S, "x", 3, "v"),
    ("type-integer", {"type": "integer"}, 3, 3.5, "v"),
    ("integer-not-bool", {"type": "integer"}, 0, False, "v"),
    ("type-number", {"type": "number"}, 3.5, "3.5", "v"),
    ("type-boolean", {"type": "boolean"}, True, 1, "v"),
    ("type-null", {"type": "null"}, None, 0, "v"),
    ("type-list", {"type": ["string", "null"]}, "x", 4, "v"),
    ("type-list-null", {"type": ["string", "null"]}, None, {"a": 1}, "v"),
    ("enum", {"enum": ["a", "b"]}, "a", "c", "v"),
    ("enum-mixed", {"enum": [1, "a", None]}, 1, True, "v"),
    ("enum-number-equality", {"enum": [1]}, 1.0, 2, "v"),
    ("const", {"const": "x"}, "x", "y", "v"),
    ("const-object", {"const": {"a": [1]}}, {"a": [1]}, {"a": [2]}, "v"),
    ("minLength", {"type": "string", "minLength": 2}, "ab", "a", "v"),
    ("maxLength", {"type": "string", "maxLength": 2}, "ab", "abc", "v"),
    ("pattern", {"type": "string", "pattern": "^[a-z]+$"}, "ab", "aB", "v"),
    ("pattern-searches", {"type": "string", "pattern": "b"}, "abc", "ac", "v"),
    (
        "date-time",
        {"type": "string", "format": "date-time"},
        "2025-01-31T09:00:00+01:00",
        "2025-01-31 09:00",
        "v",
    ),
    (
        "date-time-real",
        {"type": "string", "format": "date-time"},
        "2024-02-29T23:59:59Z",
        "2025-02-29T10:00:00Z",
        "v",
    ),
    ("date", {"type": "string", "format": "date"}, "2025-01-31", "2025-13-01", "v"),
    ("time", {"type": "string", "format": "time"}, "09:30:00Z", "25:00:00Z", "v"),
    ("email", {"type": "string", "format": "email"}, "a@b.org", "a b@c", "v"),
    ("uri", {"type": "string", "format": "uri"}, "https://x.org/a?b", "/relative", "v"),
    (
        "uuid",
        {"type": "string", "format": "uuid"},
        "123e4567-e89b-12d3-a456-426614174000",
        "123e4567",
        "v",
    ),
    ("minimum", {"type": "integer", "minimum": 1}, 1, 0, "v"),
    ("maximum", {"type": "number", "maximum": 1.5}, 1.5, 2, "v"),
    ("exclusiveMinimum", {"type": "number", "exclusiveMinimum": 0}, 0.1, 0, "v"),
    ("exclusiveMaximum", {"type": "integer", "exclusiveMaximum": 3}, 2, 3, "v"),
    ("multipleOf", {"type": "integer", "multipleOf": 5}, 10, 12, "v"),
    ("items", {"type": "array", "items": {"type": "integer"}}, [1, 2], [1, "2"], "v[1]"),
    ("minItems", {"type": "array", "minItems": 2}, [1, 2], [1], "v"),
    ("maxItems", {"type": "array", "maxItems": 1}, [1], [1, 2], "v"),
    (
        "uniqueItems",
        {"type": "array", "uniqueItems": True},
        [1, "1", True],
        [{"a": 1}, {"a": 1.0}],
        "v",
    ),
    ("nested-object", OBJ, {"n": 1}, {"n": "1"}, "v.n"),
    ("nested-required", OBJ, {"n": 1}, {"m": 1}, "v.n"),
    (
        "array-of-objects",
        {"type": "array", "items": OBJ},
        [{"n": 1}],
        [{"n": 1}, {"n": 1.5}],
        "v[1].n",
    ),
    ("anyOf", {"anyOf": [S, {"type": "integer"}]}, 3, 3.5, "v"),
    ("anyOf-nullable", {"anyOf": [S, {"type": "null"}]}, None, 1, "v"),
    ("multipleOf-fraction", {"type": "number", "multipleOf": 0.5}, 3, 3.25, "v"),
    ("integer-fraction-bound", {"type": "integer", "maximum": 2.5}, 2, 3, "v"),
    ("oneOf", {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]}, 3, 12, "v"),
    (
        "if-then",
        {"type": "string", "if": {"minLength": 3}, "then": {"pattern": "^a"}},
        "ab",
        "bcd",
        "v",
    ),
    ("not", {"not": {"type": "string"}}, 1, "x", "v"),
    (
        "prefixItems",
        {"type": "array", "prefixItems": [S, {"type": "integer"}]},
        ["a", 1],
        ["a", "b"],
        "v[1]",
    ),
    ("contains", {"type": "array", "contains": {"type": "integer"}}, ["a", 1], ["a"], "v"),
    (
        "minProperties",
        {"type": "object", "properties": {"a": {"type": "integer"}}, "minProperties": 1},
        {"a": 1},
        {},
        "v",
    ),
    ("hostname", {"type": "string", "format": "hostname"}, "example.org", "-bad-.org", "v"),
    ("duration", {"type": "string", "format": "duration"}, "P1D", "1 day", "v"),
    ("false-schema", {"type": "object", "properties": {"a": False}}, {}, {"a": 1}, "v.a"),
    ("keyword-without-type", {"maxLength": 3}, "abc", "abcd", "v"),
    (
        "patternProperties",
        {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}},
        {"x-a": 1},
        {"x-a": "1"},
        'v["x-a"]',
    ),
    (
        "unevaluatedProperties",
        {"allOf": [OBJ], "unevaluatedProperties": False},
        {"n": 1},
        {"n": 1, "m": 2},
        "v.m",
    ),
    (
        "dependentSchemas",
        {
            "type": "object",
            "properties": {"a": S, "b": S},
            "dependentSchemas": {"a": {"required": ["b"]}},
        },
        {"a": "x", "b": "y"},
        {"a": "x"},
        "v.b",
    ),
    (
        "discriminator-is-an-annotation",
        {"oneOf": [OBJ, S], "discriminator": {"propertyName": "n"}},
        {"n": 1},
        {"n": "1"},
        "v",
    ),
    (
        "allOf",
        {"allOf": [OBJ, {"type": "object", "properties": {"m": S}, "required": ["m"]}]},
        {"n": 1, "m": "x"},
        {"n": 1},
        "v.m",
    ),
    (
        "additionalProperties-schema",
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"a": 1},
        {"a": "1"},
        "v.a",
    ),
]


@pytest.mark.parametrize(
    ("name", "schema", "good", "bad", "path"), SUPPORTED, ids=[r[0] for r in SUPPORTED]
)
def test_supported_keyword(
    name: str, schema: dict[str, Any], good: Any, bad: Any, path: str
) -> None:
    doc = contract({"v": schema})
    accepted = check(doc, {"v": good})
    assert accepted.approvable, accepted.findings
    assert [c for c in codes(accepted) if c[0] != "empty_field"] == [], accepted.findings
    assert accepted.delivered == {"v": good}
    rejected = check(doc, {"v": bad})
    blocking = {p for _, p, severity in codes(rejected) if severity == "block"}
    assert path in blocking, rejected.findings
    assert not rejected.approvable


DEFS = {
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "name": S,
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["name"],
        }
    }
}


def test_recursive_ref_is_followed_to_any_depth_the_parser_allows() -> None:
    doc = {**contract({"root": {"$ref": "#/$defs/Node"}}), **DEFS}
    deep: dict[str, Any] = {"name": "leaf", "x": 1}
    for n in range(10):
        deep = {"name": f"n{n}", "children": [deep]}
    report = check(doc, {"root": deep})
    assert codes(report) == [("unknown_key", "root" + ".children[0]" * 10 + ".x", "warn")]
    assert report.approvable


def test_a_root_ref_keeps_its_defs() -> None:
    doc = {"$ref": "#/$defs/Top", "$defs": {"Top": contract({"a": S})}}
    assert codes(check(doc, {"a": 1})) == [("invalid_field", "a", "block")]


def test_definitions_spelling_of_defs() -> None:
    doc = {**contract({"a": {"$ref": "#/definitions/Name"}}), "definitions": {"Name": S}}
    assert codes(check(doc, {"a": 1})) == [("invalid_field", "a", "block")]


def test_required_missing_no_fields_and_defaults() -> None:
    doc = contract({"a": S, "b": {"type": "integer", "default": 7}, "c": S}, required=["a"])
    report = check(doc, {"c": "x"})
    assert codes(report) == [
        ("missing_field", "a", "block"),
        ("defaulted_field", "b", "warn"),
    ]
    assert ("no_fields", "", "block") in codes(check(doc, {"zzz": 1}))
    delivered = check(doc, {"a": "x"}).delivered
    assert delivered == {"a": "x", "b": 7}  # the default delivered, the optional c absent


def test_absent_optional_field_is_absent_from_delivery_and_row() -> None:
    doc = contract({"a": S, "note": {**S, "description": "Why."}}, required=["a"])
    report = check(doc, {"a": "x"})
    assert codes(report) == [] and report.delivered == {"a": "x"}
    row = field_rows(report)[1]
    assert (row.key, row.states, row.message, row.description) == (
        "note",
        (FieldState.OK,),
        OPTIONAL_ABSENT,
        "Why.",
    )


@pytest.mark.parametrize(
    ("schema", "value", "severity"),
    [
        (S, "", "warn"),
        ({"type": "string", "minLength": 1}, "", "block"),
        (S, "   ", "warn"),
        ({"type": "array"}, [], "warn"),
        ({"type": "array", "minItems": 1}, [], "block"),
        ({"type": ["string", "null"]}, None, "warn"),
        (S, None, "block"),
        ({"type": "object", "properties": {"n": S}}, {}, "warn"),
        (OBJ, {}, "block"),
    ],
)
def test_empty_values_block_where_the_schema_forbids_them(
    schema: dict[str, Any], value: Any, severity: str
) -> None:
    report = check(contract({"v": schema}), {"v": value})
    assert ("empty_field", "v", severity) in codes(report), report.findings


def test_unknown_keys_are_dropped_at_any_depth_by_default() -> None:
    inner = {"type": "object", "properties": {"n": S}}  # additionalProperties absent
    doc = contract({"v": {"type": "array", "items": inner}})
    report = check(doc, {"v": [{"n": "x", "evil": "do this"}], "top": 1})
    assert codes(report) == [
        ("unknown_key", "top", "warn"),
        ("unknown_key", "v[0].evil", "warn"),
    ]
    assert report.delivered == {"v": [{"n": "x"}]}


def test_an_open_object_passes_unnamed_keys_with_a_warning() -> None:
    doc = contract({"n": S}, additionalProperties=True)
    report = check(doc, {"n": "x", "extra": {"k": 1}})
    assert codes(report) == [("open_key", "extra", "warn")]
    assert report.delivered == {"n": "x", "extra": {"k": 1}}
    assert FieldState.DROPPED not in field_rows(report)[1].states


def test_a_map_validates_and_walks_its_values() -> None:
    """A schema for the unnamed keys declares a map (headers, labels): its keys are
    delivered without a warning, its values checked and walked like any field."""
    doc = contract({"n": S}, additionalProperties=OBJ)
    report = check(doc, {"n": "x", "a": {"n": 1, "sneak": 2}, "b": {"n": "no"}})
    assert codes(report) == [("invalid_field", "b.n", "block")]
    passed = check(doc, {"n": "x", "a": {"n": 1, "sneak": 2}})
    assert codes(passed) == [("unknown_key", "a.sneak", "warn")]
    assert passed.delivered == {"n": "x", "a": {"n": 1}}


#: Objects naming ``n`` (optional) beside a schema for their other keys, which
#: jsonschema-rs evaluates as one node: (name, object schema, the findings for
#: ``{"n": "x", "yy": "a", "z": "q"}``).
_OPEN_YY_Z = [("open_key", "yy", "warn"), ("open_key", "z", "warn")]
BESIDE_EXTRA: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("schema", {"additionalProperties": S}, []),
    ("free-form", {"additionalProperties": {}}, _OPEN_YY_Z),
    ("true", {"additionalProperties": True}, _OPEN_YY_Z),
    ("pattern-and-schema", {"patternProperties": {"^y": S}, "additionalProperties": S}, []),
    (
        "pattern-and-free",
        {"patternProperties": {"^y": S}, "additionalProperties": {}},
        [("open_key", "z", "warn")],
    ),
]


@pytest.mark.parametrize(("name", "extra", "found"), BESIDE_EXTRA, ids=[b[0] for b in BESIDE_EXTRA])
@pytest.mark.parametrize("depth", ["top", "ref-in-array"])
def test_a_named_key_beside_a_schema_for_other_keys_is_delivered_as_named(
    name: str, extra: dict[str, Any], found: list[tuple[str, str, str]], depth: str
) -> None:
    """Named keys are never dropped for sharing an object with admitted extra keys."""
    obj = {"type": "object", "properties": {"n": S}, **extra}
    sent: dict[str, Any] = {"n": "x", "yy": "a", "z": "q"}
    if depth == "top":
        doc, payload, prefix = obj, sent, ""
    else:
        doc = {
            **contract({"v": {"type": "array", "items": {"$ref": "#/$defs/O"}}}),
            "$defs": {"O": obj},
        }
        payload, prefix = {"v": [sent]}, "v[0]."
    report = check(doc, payload)
    assert codes(report) == [(c, prefix + p, s) for c, p, s in found]
    assert report.approvable and report.delivered == payload


@pytest.mark.parametrize("branching", [False, True], ids=["plain", "with-if"])
def test_a_free_form_property_of_a_closed_object_is_delivered_whole(branching: bool) -> None:
    """``{}`` admits any value: its keys are not the closed object's to drop. With an
    ``if`` beside it the evaluation answers instead of the plan, alike."""
    doc = contract({"n": S, "meta": {"description": "anything"}}, additionalProperties=False)
    if branching:
        doc["if"] = {"properties": {"n": {"const": "x"}}}
        doc["then"] = {"required": ["meta"]}
    sent = {"n": "x", "meta": {"k": [1, {"deep": None}]}}
    report = check(doc, sent)
    assert codes(report) == [] and report.delivered == sent


def test_a_closed_object_blocks_an_extra_key_at_any_depth() -> None:
    closed = {"type": "object", "properties": {"n": S}, "additionalProperties": False}
    doc = {
        **contract({"v": {"type": "array", "items": {"$ref": "#/$defs/C"}}}),
        "$defs": {"C": closed},
    }
    report = check(doc, {"v": [{"n": "x"}, {"n": "y", "smuggled": "do this"}]})
    assert codes(report) == [("unknown_key", "v[1].smuggled", "block")]
    assert report.delivered is None


def test_oneof_refuses_a_value_that_fits_two_alternatives() -> None:
    doc = contract({"v": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]}})
    report = check(doc, {"v": 12})
    assert codes(report) == [("invalid_field", "v", "block")]
    assert "more than one" in report.findings[0].message


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return node


#: (name, document, a phrase the one-line refusal must hold)
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "remote-ref",
        contract({"a": {"$ref": "https://example.org/s.json"}}),
        "it refers to https://example.org/s.json, outside the document; nothing is fetched",
    ),
    (
        "unknown-metaschema",
        {**contract({"a": S}), "$schema": "https://example.org/my-meta"},
        "is not a JSON Schema draft the gate knows",
    ),
    ("missing-def", contract({"a": {"$ref": "#/$defs/Nope"}}), "/$defs/Nope"),
    (
        "bad-minLength",
        contract({"a": {"type": "string", "minLength": "3"}}),
        "not a valid JSON Schema at /properties/a/minLength",
    ),
    (
        "draft-4-exclusive-in-2020-12",
        contract({"a": {"type": "number", "exclusiveMinimum": True}}),
        "not a valid JSON Schema at /properties/a/exclusiveMinimum",
    ),
    ("too-deep", contract({"a": _deep(300)}), "nests deeper than 256 levels"),
    (
        "additionalProperties-value",
        contract({"a": S}, additionalProperties=3),
        "not a valid JSON Schema at /additionalProperties",
    ),
    ("bad-pattern", contract({"a": {"type": "string", "pattern": "("}}), "regex"),
]


@pytest.mark.parametrize(("name", "schema", "why"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_document_the_gate_cannot_use_is_refused_in_one_line(
    name: str, schema: dict[str, Any], why: str
) -> None:
    with pytest.raises(JsonSchemaError) as caught:
        contract_from_json_schema(schema)
    message = str(caught.value)
    assert why in message
    assert "\n" not in message


def test_an_older_draft_is_judged_as_that_draft() -> None:
    """Draft 7 ignores what sits beside ``$ref``; 2020-12 applies it."""
    beside = {
        "properties": {"a": {"$ref": "#/definitions/S", "maxLength": 1}},
        "definitions": {"S": S},
    }
    draft7 = {**beside, "$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    assert check(draft7, {"a": "long"}).approvable
    later = {**beside, "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
    assert not check(later, {"a": "long"}).approvable


def test_an_unknown_format_is_accepted_with_a_warning_on_its_field() -> None:
    doc = contract({"a": {"type": "string", "format": "x-invoice-number"}})
    report = check(doc, {"a": "anything"})
    assert report.approvable
    assert codes(report) == [("unchecked_format", "a", "warn")]


def test_a_tool_that_requires_nothing_is_approvable_with_no_arguments() -> None:
    doc = {"type": "object", "properties": {"page": {"type": "integer"}}}
    model = contract_from_json_schema(doc)
    as_tool = inspect(b"{}", "t/v1", {"t/v1": model}, InspectOptions(tool_call=True))
    assert as_tool.approvable and as_tool.delivered == {}
    as_phase = inspect(b"{}", "t/v1", {"t/v1": model})
    assert [f.code.value for f in as_phase.findings] == ["no_fields"]


def test_a_free_form_object_delivers_every_key_as_sent() -> None:
    doc = {"type": "object", "additionalProperties": True}
    args = {"path": "/tmp/x", "options": {"recursive": True, "depth": [1, {"k": None}]}}
    report = check(doc, args)
    assert report.delivered == args
    assert codes(report) == [("open_key", "path", "warn"), ("open_key", "options", "warn")]


def test_annotations_are_accepted_and_descriptions_kept() -> None:
    doc = contract(
        {"a": {**S, "title": "A", "description": "What a is.", "examples": ["x"], "$comment": "c"}},
        title="T",
        description="A test contract.",
        **{"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": "top"},
    )
    report = check(doc, {"a": "x"})
    assert report.approvable
    assert field_rows(report)[0].description == "What a is."


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b'{"type": "object", "type": "string"}', "twice"),
        (b'{"type": "object", "properties": {"a": {"minimum": NaN}}}', "not JSON"),
        (b"[]", "JSON object"),
        (b"\xff", "not UTF-8"),
        (b"{", "not JSON"),
    ],
)
def test_schema_bytes_must_be_strict_json(data: bytes, why: str) -> None:
    with pytest.raises(JsonSchemaError, match=why):
        read_json_schema(data)


def test_one_contract_per_digest_whatever_the_spelling() -> None:
    doc = contract({"a": S, "b": {"type": "integer"}})
    spaced = json.dumps(doc, indent=4).encode()
    reordered = json.dumps(dict(reversed(list(doc.items())))).encode()
    assert schema_sha256(spaced) == schema_sha256(reordered) == schema_sha256(doc)
    assert contract_from_json_schema(spaced) is contract_from_json_schema(doc)
    assert contract_from_json_schema(contract({"a": S})) is not contract_from_json_schema(doc)


def test_a_caller_changing_its_dict_later_changes_nothing() -> None:
    doc = contract({"late": {"type": "string", "maxLength": 3}})
    model = contract_from_json_schema(doc)
    doc["properties"]["late"]["maxLength"] = 1000
    report = inspect(b'{"late": "abcdef"}', "t/v1", {"t/v1": model})
    assert not report.approvable


def test_property_names_that_are_not_identifiers() -> None:
    doc = contract({"model_config": S, "a-b": S, "_x": S, "schema": S})
    payload = {"model_config": "1", "a-b": "2", "_x": "3", "schema": "4"}
    report = check(doc, payload)
    assert codes(report) == [] and report.delivered == payload


#: Keys a payload may carry without an unsafe_text finding (that one is tested elsewhere).
safe = st.characters(categories=["L", "M", "N", "P", "S", "Zs"])
names = st.text(safe, min_size=1, max_size=8)


@SETTINGS
@given(keys=st.lists(names, min_size=1, max_size=5, unique=True), data=st.data())
def test_any_property_names_round_trip(keys: list[str], data: st.DataObject) -> None:
    """Whatever the keys, a valid payload is delivered exactly and an extra key dropped."""
    doc = contract({key: {"type": "integer"} for key in keys})
    payload = {k: data.draw(st.integers(-5, 5)) for k in keys}
    report = check(doc, {**payload, "extra-key-9": 1})
    assert report.delivered == payload
    assert [f.code.value for f in report.findings] == ["unknown_key"]
