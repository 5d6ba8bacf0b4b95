"""Statement bytes are fixed for fixed fields, and change when any bound field changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handoff_gate.gates.trust.statement import (
    DECISION_PREFIX,
    HANDOFF_PREFIX,
    NO_LOG_HEAD,
    StatementError,
    decision_statement,
    handoff_statement,
)
from handoff_gate.gates.vocab.deadline import stamp

DECISION: dict[str, Any] = {
    "run": "run-1",
    "handoff": "0001-plan",
    "sha256": "ab" * 32,
    "action": "reject",
    "reason": 'naïve "plan"',
    "category": "wrong",
    "principal": "alice",
    "at": "2026-11-30T20:39:32.123Z",
    "log_head": NO_LOG_HEAD,
}
HANDOFF: dict[str, Any] = {
    "run": "run-1",
    "handoff": "0001-plan",
    "sha256": "cd" * 32,
    "phase": "plan",
    "schema": "plan/v1",
    "principal": "planner",
    "at": "2026-11-30T20:39:32.123Z",
}


def test_decision_bytes_are_stable() -> None:
    assert decision_statement(**DECISION) == (
        b"handoff-gate-decision/1\n"
        b'{"action":"reject","at":"2026-11-30T20:39:32.123Z","category":"wrong",'
        b'"handoff":"0001-plan","log_head":"' + b"0" * 64 + b'","principal":"alice",'
        b'"reason":"na\\u00efve \\"plan\\"","run":"run-1","sha256":"' + b"ab" * 32 + b'"}'
    )


def test_handoff_bytes_are_stable() -> None:
    assert handoff_statement(**HANDOFF) == (
        b"handoff-gate-handoff/1\n"
        b'{"at":"2026-11-30T20:39:32.123Z","handoff":"0001-plan","phase":"plan",'
        b'"principal":"planner","run":"run-1","schema":"plan/v1","sha256":"' + b"cd" * 32 + b'"}'
    )


def test_none_is_bound_as_null() -> None:
    approval = {**DECISION, "action": "approve", "reason": None, "category": None}
    body = json.loads(decision_statement(**approval).removeprefix(DECISION_PREFIX))
    assert body["reason"] is None
    assert body["category"] is None
    assert decision_statement(**approval) != decision_statement(**{**approval, "reason": ""})


hexes = st.text("0123456789abcdef", min_size=64, max_size=64)
texts = st.text(min_size=1, max_size=30)
phases = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,39}", fullmatch=True)
stamps = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(9999, 1, 1), timezones=st.just(UTC)
).map(stamp)
DECISION_FIELDS = {
    "run": texts,
    "handoff": texts,
    "sha256": hexes,
    "action": st.sampled_from(["approve", "reject"]),
    "reason": st.none() | st.text(max_size=30),
    "category": st.none() | st.text(max_size=30),
    "principal": texts,
    "at": stamps,
    "log_head": hexes,
}
HANDOFF_FIELDS = {
    "run": texts,
    "handoff": texts,
    "sha256": hexes,
    "phase": phases,
    "schema": texts,
    "principal": texts,
    "at": stamps,
}


@given(st.fixed_dictionaries(DECISION_FIELDS), st.fixed_dictionaries(DECISION_FIELDS))
def test_decision_bytes_differ_when_any_field_differs(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    same = decision_statement(**first) == decision_statement(**second)
    assert same == (first == second)
    body = decision_statement(**first).removeprefix(DECISION_PREFIX)
    assert json.loads(body) == first
    assert body.isascii()


@given(st.fixed_dictionaries(HANDOFF_FIELDS), st.sampled_from(sorted(HANDOFF_FIELDS)), st.data())
def test_handoff_bytes_differ_when_one_field_differs(
    base: dict[str, Any], field: str, data: st.DataObject
) -> None:
    changed = {**base, field: data.draw(HANDOFF_FIELDS[field])}
    same = handoff_statement(**base) == handoff_statement(**changed)
    assert same == (base[field] == changed[field])
    assert handoff_statement(**base).startswith(HANDOFF_PREFIX)


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("run", 1, "run: must be a non-empty string, not int"),
        ("run", "", "run: must be a non-empty string"),
        ("handoff", None, "handoff: must be a non-empty string, not NoneType"),
        ("sha256", "AB" * 32, "sha256: must be 64 lowercase hex"),
        ("sha256", b"ab" * 32, "sha256: must be a non-empty string, not bytes"),
        ("action", "approved", "action: must be one of approve, reject"),
        ("action", ["approve"], "action: must be one of"),
        ("reason", 3, "reason: must be a string or None, not int"),
        ("category", b"wrong", "category: must be a string or None, not bytes"),
        ("principal", "", "principal: must be a non-empty string"),
        ("at", "2026-11-30T20:39:32Z", "at: must be UTC ISO-8601"),
        ("at", "2026-11-30T20:39:32.123+00:00", "at: must be UTC ISO-8601"),
        ("at", "2026-02-30T20:39:32.123Z", "at: not a real date"),
        ("at", datetime(2026, 1, 1, tzinfo=UTC), "at: must be a non-empty string"),
        ("log_head", "0" * 63, "log_head: must be 64 lowercase hex"),
    ],
)
def test_decision_fields_of_the_wrong_type_are_refused(
    field: str, value: Any, problem: str
) -> None:
    with pytest.raises(StatementError, match=problem.replace("(", r"\(")):
        decision_statement(**{**DECISION, field: value})


@pytest.mark.parametrize(
    ("field", "value"),
    [("phase", "Plan"), ("phase", "*"), ("schema", 1), ("principal", None), ("at", "")],
)
def test_handoff_fields_of_the_wrong_type_are_refused(field: str, value: Any) -> None:
    with pytest.raises(StatementError, match=f"^{field}: "):
        handoff_statement(**{**HANDOFF, field: value})


def test_stamp_is_the_spelling_a_statement_takes() -> None:
    moment = datetime(2026, 11, 30, 21, 39, 32, 123456, tzinfo=timezone(timedelta(hours=1)))
    assert stamp(moment) == "2026-11-30T20:39:32.123Z"
    decision_statement(**{**DECISION, "at": stamp(moment)})
    with pytest.raises(ValueError, match="time zone"):
        stamp(datetime(2026, 11, 30))
