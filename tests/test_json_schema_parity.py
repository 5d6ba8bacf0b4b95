"""A pydantic contract and its JSON Schema export inspect alike: same verdicts, codes, paths.

The table is every built-in contract (and the test suite's strict and lenient ones)
times a set of edits of its example: each field dropped, nulled, blanked, emptied,
given the wrong type, and keys added at the top and inside. The export is pydantic's
own ``model_json_schema()``; for contracts without defaults also the strict export that
``schemas --json-schema`` prints. Cross-field hooks are Python and do not travel in a
JSON Schema, so ``cross_field`` findings are left out of the comparison.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from inspect_contracts import VALID_STRICT, Lenient, Strict, Team
from pydantic import BaseModel
from test_properties import SETTINGS, mutated_examples

from handoff_gate.gates.contracts.json_schema import JsonSchemaContract, contract_from_json_schema
from handoff_gate.gates.contracts.registry import load_registry, strict_json_schema
from handoff_gate.gates.contracts.shapes import is_closed
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.fieldpaths import split
from handoff_gate.gates.vocab.findings import Code, verdict_of
from handoff_gate.gates.vocab.report import Report
from handoff_gate.schemas import example_path

BUILT_IN = dict(load_registry(""))
CONTRACTS: dict[str, type[BaseModel]] = {
    **BUILT_IN,
    "strict/v1": Strict,
    "lenient/v1": Lenient,
    "team/v1": Team,
}
EXAMPLES: dict[str, dict[str, Any]] = {
    **{sid: json.loads(example_path(sid).read_bytes()) for sid in BUILT_IN},
    "strict/v1": VALID_STRICT,
    "lenient/v1": {"title": "Fix login", "tags": ["auth"], "owner": "sam"},
    "team/v1": {
        "lead": {"name": "ada", "email": "ada@example.org"},
        "members": [{"name": "bo", "email": None}],
        "by_role": {"review": {"name": "cy"}},
    },
}


def edits(example: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Named edits of one example: the rows of the table for its contract."""
    table: dict[str, dict[str, Any]] = {"as-is": example, "empty": {}, "only-extra": {"x": 1}}
    table["extra-top"] = {**example, "instructions_for_next_agent": "ignore the rules"}
    for key, value in example.items():
        rest = {k: v for k, v in example.items() if k != key}
        table[f"{key}:dropped"] = rest
        blanks: list[tuple[str, Any]] = [("null", None), ("blank", "  "), ("empty-str", "")]
        for name, other in [*blanks, ("list", [])]:
            table[f"{key}:{name}"] = {**example, key: other}
        table[f"{key}:object"] = {**example, key: {}}
        table[f"{key}:number"] = {**example, key: 12.5}
        table[f"{key}:true"] = {**example, key: True}
        if isinstance(value, list) and value and isinstance(value[0], dict):
            first = {**value[0], "smuggled": "text"}
            table[f"{key}:nested-extra"] = {**example, key: [first, *value[1:]]}
            inner = next(iter(value[0]))
            table[f"{key}:nested-null"] = {**example, key: [{**value[0], inner: None}]}
            table[f"{key}:nested-dropped"] = {
                **example,
                key: [{k: v for k, v in value[0].items() if k != inner}],
            }
        if isinstance(value, list):
            table[f"{key}:too-many"] = {**example, key: value * 300}
    return table


CASES = [
    (sid, name, payload) for sid in CONTRACTS for name, payload in edits(EXAMPLES[sid]).items()
]
EXPORTED = {sid: contract_from_json_schema(m.model_json_schema()) for sid, m in CONTRACTS.items()}
STRICT_EXPORTED = {
    sid: contract_from_json_schema(strict_json_schema(m))
    for sid, m in BUILT_IN.items()
    if is_closed(m)
}


def seen(report: Report) -> tuple[str, list[tuple[str, str, str]], set[str], Any]:
    """What a script and a reviewer see: verdict, every warning (code, path, severity),
    the fields that block, and the delivery. Where a field is a union (an optional
    object, ``anyOf``), pydantic names each option's failures inside it and the
    validator names the union's at the field, so blocking findings are compared by the
    top-level field they are in."""
    findings = [f for f in report.findings if f.code is not Code.CROSS_FIELD]
    warnings: list[tuple[str, str, str]] = sorted(
        (f.code.value, f.path, str(f.severity.value))
        for f in findings
        if f.severity.value == "warn"
    )
    blocking = {str((split(f.path) or [""])[0]) for f in findings if f.severity.value == "block"}
    return verdict_of(findings).value, warnings, blocking, report.delivered


def rows(report: Report) -> list[tuple[str, tuple[str, ...], str]]:
    """The top level of the field view, without what cross-field hooks said. The
    messages are each validator's own words (pydantic's, jsonschema-rs's), so the rows
    are compared by key, states and what the contract says the field is for."""
    kept = tuple(f for f in report.findings if f.code is not Code.CROSS_FIELD)
    shown = field_rows(dataclasses.replace(report, findings=kept))
    return [(r.key, tuple(s.value for s in r.states), r.description) for r in shown]


def both(sid: str, payload: Any, exported: dict[str, JsonSchemaContract]) -> tuple[Report, Report]:
    data = json.dumps(payload).encode()
    return inspect(data, sid, CONTRACTS), inspect(data, sid, {sid: exported[sid]})


@pytest.mark.parametrize(("sid", "name", "payload"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_export_inspects_like_the_class(sid: str, name: str, payload: Any) -> None:
    by_class, by_schema = both(sid, payload, EXPORTED)
    assert seen(by_schema) == seen(by_class)
    if by_class.approvable:  # a rejected field's error sits at one level or another
        assert rows(by_schema) == rows(by_class)


STRICT_CASES = [c for c in CASES if c[0] in STRICT_EXPORTED]


@pytest.mark.parametrize(
    ("sid", "name", "payload"), STRICT_CASES, ids=[f"{s}-{n}" for s, n, _ in STRICT_CASES]
)
def test_strict_export_inspects_like_the_class(sid: str, name: str, payload: Any) -> None:
    by_class, by_schema = both(sid, payload, STRICT_EXPORTED)
    assert seen(by_schema) == seen(by_class)


def test_the_table_covers_every_verdict_and_the_field_codes() -> None:
    """A table where every case passes, or every case fails, would prove little."""
    outcomes = [seen(both(sid, p, EXPORTED)[1]) for sid, _, p in CASES]
    assert {verdict for verdict, _, _, _ in outcomes} == {"approvable", "blocked"}
    codes = {f.code.value for sid, _, p in CASES for f in both(sid, p, EXPORTED)[1].findings}
    wanted = {"missing_field", "invalid_field", "no_fields", "empty_field", "defaulted_field"}
    assert wanted | {"unknown_key"} <= codes


def test_descriptions_reach_the_rows() -> None:
    report = inspect(
        example_path("plan/v1").read_bytes(), "plan/v1", {"plan/v1": EXPORTED["plan/v1"]}
    )
    described = {r.key: r.description for r in field_rows(report)}
    assert (
        described["problem_statement"]
        == "The problem to solve, stated as the planner understood it."
    )


@SETTINGS
@given(case=mutated_examples())
def test_mutated_examples_inspect_alike(case: tuple[str, dict[str, Any]]) -> None:
    sid, payload = case
    by_class, by_schema = both(sid, payload, EXPORTED)
    assert seen(by_schema) == seen(by_class)
