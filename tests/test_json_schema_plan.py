"""A contract's plans (``schema_plan``) and the validator's evaluation say the same.

Which keys of a valid payload cross is read from the schema when a plan can follow it,
and from jsonschema-rs's evaluation otherwise; the plan exists only because building
the evaluation's output costs several times the validation. So the two must be one
function where both answer: the same findings in the same order, the same drops, the
same named fields at the same paths, the same ``no_fields`` answer. Held here on every
valid case of the official suite (both drafts) and on every edit of every built-in
contract's example against its JSON Schema export.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_json_schema_parity import CONTRACTS, EXAMPLES, edits
from test_json_schema_suite import DRAFTS, SUITE, wrapped

from bench.hostile import SHAPES
from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaContract,
    JsonSchemaError,
    contract_from_json_schema,
)
from handoff_gate.gates.inspect.parse import skeleton
from handoff_gate.gates.inspect.schema_check import _evaluated, _planned, check_json_schema
from handoff_gate.gates.inspect.schema_plan import planner_for
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.inspect.validate import empty_shapes


def _valid_cases(draft: str) -> Iterator[tuple[str, JsonSchemaContract, dict[str, Any]]]:
    for path in sorted((SUITE / draft).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            try:
                contract = contract_from_json_schema(wrapped(draft, group["schema"]))
            except JsonSchemaError:
                continue
            for case in group["tests"]:
                if case["valid"]:
                    yield f"{path.name}: {case['description']}", contract, {"v": case["data"]}


def _disagreements(cases: list[tuple[str, JsonSchemaContract, dict[str, Any]]]) -> list[str]:
    """Each case the plan answers, compared with the evaluation; the names of those
    where they differ (an empty list when they never do)."""
    wrong = []
    for name, contract, payload in cases:
        planned = _planned(payload, contract)
        assert planned is not None
        findings, drops, layout, unmet, _ = planned
        e_findings, e_drops, e_layout, e_unmet, _ = _evaluated(payload, contract)
        if (findings, drops, dict(layout), unmet) != (e_findings, e_drops, e_layout, e_unmet):
            wrong.append(name)
    return wrong


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_the_plan_and_the_evaluation_agree_on_every_valid_case_of_the_suite(draft: str) -> None:
    planned = [
        (name, contract, payload)
        for name, contract, payload in _valid_cases(draft)
        if not list(contract.validator.iter_errors(payload))
        and _planned(payload, contract) is not None
    ]
    assert len(planned) > 350, "the plan should answer most plain cases"
    assert _disagreements(planned) == []


def test_the_plan_and_the_evaluation_agree_on_every_built_in_contract() -> None:
    cases = []
    for schema_id, model in CONTRACTS.items():
        contract = contract_from_json_schema(model.model_json_schema())
        assert planner_for(contract) is not None, schema_id
        for name, payload in edits(EXAMPLES[schema_id]).items():
            if not list(contract.validator.iter_errors(payload)):
                cases.append((f"{schema_id} {name}", contract, payload))
    assert len(cases) > 40
    assert _disagreements(cases) == []


def test_a_contract_closed_all_the_way_down_skips_the_walk_with_the_same_answer() -> None:
    """A valid payload with no empty value under a sealed contract is not walked; its
    outcome (findings, delivery, the rows' layout) is what the walk would give."""
    compared = 0
    for schema_id, model in CONTRACTS.items():
        contract = contract_from_json_schema(model.model_json_schema())
        planner = planner_for(contract)
        assert planner is not None
        for payload in edits(EXAMPLES[schema_id]).values():
            text = json.dumps(payload)
            data = text.encode()
            empties, _ = empty_shapes(text, data, skeleton(data))
            if empties or not planner.sealed() or list(contract.validator.iter_errors(payload)):
                continue
            quick = check_json_schema(payload, contract, empties=False)
            full = check_json_schema(payload, contract)
            assert quick.findings == full.findings and quick.delivered == full.delivered
            assert dict(quick.layout or {}) == dict(full.layout or {})
            compared += 1
    assert compared >= 10


@pytest.mark.parametrize(
    ("name", "schema"),
    [
        ("silent-nested", {"type": "object", "properties": {"a": {"type": "object"}}}),
        (
            "default",
            {
                "type": "object",
                "properties": {"a": {"type": "string", "default": "x"}},
                "additionalProperties": False,
            },
        ),
        (
            "unchecked-format",
            {
                "type": "object",
                "properties": {"a": {"type": "string", "format": "x-local"}},
                "additionalProperties": False,
            },
        ),
        (
            "free-items",
            {
                "type": "object",
                "properties": {"a": {"type": "array"}},
                "additionalProperties": False,
            },
        ),
    ],
)
def test_a_contract_with_something_to_report_on_a_full_payload_is_not_sealed(
    name: str, schema: dict[str, Any]
) -> None:
    planner = planner_for(contract_from_json_schema(schema))
    assert planner is not None and not planner.sealed()


#: Schemas whose admitted keys depend on which branch passed: no plan, the evaluation
#: answers, and the answer is still right (what the payload's keys become).
BRANCHING: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "if-then",
        {
            "type": "object",
            "properties": {"kind": {"type": "string"}},
            "if": {"properties": {"kind": {"const": "a"}}},
            "then": {"properties": {"a": {"type": "integer"}}},
        },
        {"kind": "a", "a": 1, "b": 2},
        {"kind": "a", "a": 1},
    ),
    (
        "two-object-branches",
        {
            "type": "object",
            "properties": {
                "v": {
                    "anyOf": [
                        {"type": "object", "properties": {"x": {"type": "integer"}}},
                        {"type": "object", "properties": {"y": {"type": "string"}}},
                    ]
                }
            },
        },
        {"v": {"x": 1, "y": "s", "z": 0}},
        {"v": {"x": 1, "y": "s"}},
    ),
    (
        "pattern-properties",
        {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
        {"x-a": "1", "b": 2},
        {"x-a": "1"},
    ),
]


@pytest.mark.parametrize(
    ("name", "schema", "sent", "delivered"), BRANCHING, ids=[b[0] for b in BRANCHING]
)
def test_a_schema_the_plan_cannot_follow_is_answered_by_the_evaluation(
    name: str, schema: dict[str, Any], sent: dict[str, Any], delivered: dict[str, Any]
) -> None:
    contract = contract_from_json_schema(schema)
    assert _planned(sent, contract) is None
    report = inspect(json.dumps(sent).encode(), "t/v1", {"t/v1": contract})
    assert report.approvable and report.delivered == delivered


@pytest.mark.parametrize(("name", "schema", "good"), SHAPES, ids=[s[0] for s in SHAPES])
def test_planning_a_hostile_schema_ends(name: str, schema: dict[str, Any], good: Any) -> None:
    """A plan or none, never a RecursionError; either way the delivery is the payload."""
    contract = contract_from_json_schema(schema)
    report = inspect(json.dumps(good).encode(), "h/v1", {"h/v1": contract})
    assert report.approvable and report.delivered == good
