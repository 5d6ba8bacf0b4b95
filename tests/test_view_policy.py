"""Display policy the front ends share: masking, the suggested reject category, and which
states need a person. Real reports from ``inspect``, no stand-ins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handoff_gate.gates.api import inspect_in_run, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.gates.view.masking import display_lines, refusal_said
from handoff_gate.gates.view.reject_hint import suggest_category
from handoff_gate.gates.vocab.actions import Category
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import (
    NEEDS_PERSON,
    HandoffState,
    needs_person,
)

KEY = "AKIAIOSFODNN7EXAMPLE"
REGISTRY = load_registry("")


def test_display_lines_masks_then_makes_escapes_visible_per_line() -> None:
    lines = display_lines(f"first {KEY}\nsecond \x1b[31mred")
    assert len(lines) == 2
    assert KEY not in lines[0]
    assert "\x1b" not in lines[1] and "second" in lines[1]


def test_refusal_said_prefers_the_refusal_text_and_masks_it(tmp_path: Path) -> None:
    ref = submit(tmp_path / "run", b"{}", phase="plan", schema_id="plan/v1", refusal=f"no: {KEY}")
    report = inspect_in_run(ref.run, ref.id, REGISTRY)
    said = refusal_said(report)
    assert said.startswith("no: ") and KEY not in said


def test_refusal_said_falls_back_to_the_raw_reply() -> None:
    reply = f"I can't help with that. {KEY}".encode()
    report = inspect(reply, "plan/v1", REGISTRY, InspectOptions(finish_reason="stop"))
    assert any(f.code is Code.REFUSAL for f in report.findings)
    said = refusal_said(report)
    assert "can't help" in said and KEY not in said


def _report(*codes: Code) -> Report:
    findings = tuple(Finding(code, "", Severity.BLOCK, "x") for code in codes)
    return Report(sha256="0" * 64, size=0, findings=findings)


@pytest.mark.parametrize(
    ("codes", "category"),
    [
        ((), Category.OTHER),
        ((Code.MISSING_FIELD, Code.TRUNCATED), Category.TRUNCATED),
        ((Code.SECRET, Code.MISSING_FIELD), Category.UNSAFE),
        ((Code.EMPTY_FIELD, Code.INVALID_FIELD), Category.INCOMPLETE),
        ((Code.CROSS_FIELD,), Category.WRONG),
    ],
)
def test_the_most_specific_finding_picks_the_category(
    codes: tuple[Code, ...], category: Category
) -> None:
    assert suggest_category(_report(*codes)) is category


def test_no_report_suggests_other() -> None:
    assert suggest_category(None) is Category.OTHER


def test_a_cut_reply_suggests_truncated() -> None:
    cut = json.dumps({"problem_statement": "x"})[:-3].encode()
    report = inspect(cut, "plan/v1", REGISTRY, InspectOptions(finish_reason="length"))
    assert suggest_category(report) is Category.TRUNCATED


#: What a reviewer's count and queue rely on, state by state, spelled out here rather than
#: derived from the constants under test.
WAITS_FOR_A_PERSON = {
    HandoffState.PENDING: True,
    HandoffState.BLOCKED: True,
    HandoffState.APPROVED: False,
    HandoffState.REJECTED: False,
    HandoffState.CHANGED: False,
    HandoffState.UNUSABLE: False,
    HandoffState.WITHDRAWN: False,
    HandoffState.EXPIRED: False,
}


@pytest.mark.parametrize("state", list(HandoffState))
def test_only_undecided_states_need_a_person(state: HandoffState) -> None:
    needs = WAITS_FOR_A_PERSON[state]
    assert needs_person(state) is needs
    assert (state in NEEDS_PERSON) is needs


def test_an_unknown_state_needs_no_person() -> None:
    assert not needs_person(None)
