"""A contract's plans (``schema_plan``): what they answer, and where they stop.

Which keys of a valid payload cross is read from the schema, never from the
validator's evaluation output (whose size grows with every branch of every ``anyOf``).
Whether that answer is right is held in ``test_json_schema_delivery`` against an
oracle; here: the shortcut for contracts closed all the way down gives the walk's
answer, branching schemas are answered, hostile ones end, and past a bound the gate
blocks (``over_budget``) instead of expanding.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_json_schema_parity import CONTRACTS, EXAMPLES, edits

from bench.hostile import ANY_OF_ITEMS_30, SHAPES
from handoff_gate.gates.contracts.json_schema import JsonSchemaContract, contract_from_json_schema
from handoff_gate.gates.inspect import schema_plan
from handoff_gate.gates.inspect.parse import skeleton
from handoff_gate.gates.inspect.schema_check import check_json_schema
from handoff_gate.gates.inspect.schema_plan import planner_for
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.inspect.validate import empty_shapes
from handoff_gate.gates.vocab.findings import Code, Severity


def test_a_contract_closed_all_the_way_down_skips_the_walk_with_the_same_answer() -> None:
    """A valid payload with no empty value under a sealed contract is not walked; its
    outcome (findings, delivery, the rows' layout) is what the walk would give."""
    compared = 0
    for schema_id, model in CONTRACTS.items():
        contract = contract_from_json_schema(model.model_json_schema())
        planner = planner_for(contract)
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
    assert not planner_for(contract_from_json_schema(schema)).sealed()


#: Schemas whose admitted keys depend on which branch passed: answered from the schema,
#: every key a branch names kept, the rest dropped.
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
def test_a_branching_schema_is_answered_from_the_schema(
    name: str, schema: dict[str, Any], sent: dict[str, Any], delivered: dict[str, Any]
) -> None:
    contract = contract_from_json_schema(schema)
    report = inspect(json.dumps(sent).encode(), "t/v1", {"t/v1": contract})
    assert report.approvable and report.delivered == delivered


@pytest.mark.parametrize(("name", "schema", "good"), SHAPES, ids=[s[0] for s in SHAPES])
def test_planning_a_hostile_schema_ends(name: str, schema: dict[str, Any], good: Any) -> None:
    """A plan or none, never a RecursionError; either way the delivery is the payload."""
    contract = contract_from_json_schema(schema)
    report = inspect(json.dumps(good).encode(), "h/v1", {"h/v1": contract})
    assert report.approvable and report.delivered == good


def test_thirty_levels_of_any_of_over_items_are_answered_without_expanding_them() -> None:
    """Issue 41's case: an evaluation expanding every branch took 27 s and 4 GB; the
    plan gathers each level once, so the answer is the right one (approvable, the
    payload delivered whole)."""
    schema, payload = ANY_OF_ITEMS_30
    data = json.dumps(payload).encode()
    assert len(data) < 40
    report = inspect(data, "deep/v1", {"deep/v1": contract_from_json_schema(schema)})
    assert report.approvable, report.findings
    assert report.findings == () and report.delivered == payload


def test_past_the_plans_bounds_the_handoff_is_blocked_over_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schema_plan, "MAX_APPLYING", 8)
    schema, payload = ANY_OF_ITEMS_30
    contract = contract_from_json_schema({**schema, "title": "a new digest"})
    report = inspect(json.dumps(payload).encode(), "deep/v1", {"deep/v1": contract})
    assert [(f.code, f.severity) for f in report.findings] == [(Code.OVER_BUDGET, Severity.BLOCK)]
    assert report.delivered is None


def _nested_strings(levels: int) -> dict[str, Any]:
    """Each level a choice between the next level and an array of it, down to a string:
    a value that is no string fails every branch of every level."""
    defs: dict[str, Any] = {f"d{levels}": {"type": "string"}}
    for n in range(levels - 1, -1, -1):
        deeper = {"$ref": f"#/$defs/d{n + 1}"}
        defs[f"d{n}"] = {"anyOf": [deeper, {"type": "array", "items": deeper}]}
    return {
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/d0"}},
        "required": ["v"],
        "additionalProperties": False,
        "$defs": defs,
    }


def test_a_rejected_payload_whose_errors_would_take_too_long_to_list_is_over_budget() -> None:
    """30 levels of ``anyOf`` over ``$ref`` and a 30-byte payload failing them all: the
    validator's error listing would evaluate every branch of every level (minutes at
    this depth; 4.6 s one level shallower), so it is not asked for. The payload is
    blocked ``over_budget``, as it would be blocked ``invalid_field`` otherwise."""
    contract = contract_from_json_schema(_nested_strings(30))
    data = b'{"v": [[[[123456789012345]]]]}'
    assert len(data) == 30
    report = inspect(data, "deep/v1", {"deep/v1": contract})
    assert [(f.code, f.severity) for f in report.findings] == [(Code.OVER_BUDGET, Severity.BLOCK)]
    assert "not valid against the contract" in report.findings[0].message
    assert report.delivered is None and report.layout is not None


def test_a_rejected_payload_under_shallow_branches_still_has_its_errors_listed() -> None:
    """The budget leaves ordinary rejections alone: the same schema, a payload failing a
    level less deep, gets the validator's error at its path."""
    contract = contract_from_json_schema(_nested_strings(30))
    report = inspect(b'{"v": [123456789012345]}', "deep/v1", {"deep/v1": contract})
    assert [(f.code, f.path, f.severity) for f in report.findings] == [
        (Code.INVALID_FIELD, "v", Severity.BLOCK)
    ]


def _capped(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_check_answers_the_thirty_levels_within_a_gigabyte_of_address_space(
    tmp_path: Path,
) -> None:
    """The fail-closed guard: ``check`` in a process that cannot grow past 1 GB of
    address space answers (an expansion would die of ``MemoryError`` first)."""
    schema, payload = ANY_OF_ITEMS_30
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "payload.json").write_text(json.dumps(payload))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "handoff-gate"), "check", "payload.json",
         "--json-schema", "schema.json", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: _capped(1 << 30), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["verdict"] == "approvable"


class _RejectsWithoutSaying:
    """A validator that says "invalid" and lists no error (a library's inconsistency)."""

    def is_valid(self, instance: object) -> bool:
        return False

    def iter_errors(self, instance: object) -> Iterator[object]:
        return iter(())


def test_a_rejection_listing_no_error_still_blocks() -> None:
    """``is_valid`` is asked first and the errors only then: a "no" without a reason is
    still a no, never read as a valid payload."""
    document = {"type": "object", "properties": {"a": {"type": "string"}}}
    contract = JsonSchemaContract(document, "0" * 64, _RejectsWithoutSaying())
    report = inspect(b'{"a": "x"}', "t/v1", {"t/v1": contract})
    assert [(f.code, f.path, f.severity) for f in report.findings] == [
        (Code.INVALID_FIELD, "", Severity.BLOCK)
    ]
    assert report.delivered is None
