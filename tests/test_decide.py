"""Decisions: refused when they must be, durable and exclusive when written."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pytest

from handoff_gate.gates.api import decide, inspect_in_run, read_decision, submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import DecisionCorrupt
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.decisions import DecisionRefused
from handoff_gate.gates.decide.reviewer import default_reviewer
from handoff_gate.gates.standing import report_in_run
from handoff_gate.gates.store.durable import atomic_write
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.states import HandoffState, state_of
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")
PLAN = example_path("plan/v1").read_bytes()


def _submit(run: Path, payload: bytes = PLAN) -> str:
    return submit(run, payload, phase="plan", schema_id="plan/v1").id


def _events(run: Path, name: str) -> list[dict[str, object]]:
    return [e for e in audit.read_events(run, FilesystemStore()) if e["event"] == name]


@pytest.mark.parametrize(
    ("env", "user"), [({"USER": "bo"}, "bo"), ({"USER": "bo", "LOGNAME": "ana"}, "ana")]
)
def test_the_default_reviewer_is_the_os_account_at_this_host(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], user: str
) -> None:
    """The account the environment names (``LOGNAME`` before ``USER``), at this host."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    host = socket.gethostname() or "localhost"
    assert default_reviewer() == f"{user}@{host}"


def test_approving_records_who_when_and_the_exact_bytes(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    decision = decide(tmp_path, hid, "approve", registry=REGISTRY)
    file_bytes = (tmp_path / "handoffs" / f"{hid}.json").read_bytes()
    assert decision.sha256 == hashlib.sha256(file_bytes).hexdigest()
    assert decision.reviewer == default_reviewer()
    assert "@" in decision.reviewer
    assert decision.decided_at.endswith("Z")
    assert decision.verdict == "approvable"
    assert read_decision(tmp_path, hid) == decision
    assert [e["action"] for e in _events(tmp_path, "decision_written")] == ["approve"]


def test_approving_a_blocked_handoff_is_refused_and_names_the_codes(tmp_path: Path) -> None:
    hid = _submit(tmp_path, b"Sorry, I can't help with that.")
    with pytest.raises(DecisionRefused, match="blocked") as refused:
        decide(tmp_path, hid, Action.APPROVE, registry=REGISTRY)
    report = inspect_in_run(tmp_path, hid, REGISTRY)
    for finding in report.blocking:
        assert finding.code.value in str(refused.value)
    assert read_decision(tmp_path, hid) is None
    assert len(_events(tmp_path, "decision_refused")) == 1


@pytest.mark.parametrize("reason", [None, "", "   \n\t"])
def test_rejecting_needs_a_real_reason(tmp_path: Path, reason: str | None) -> None:
    hid = _submit(tmp_path)
    with pytest.raises(DecisionRefused, match="reason"):
        decide(tmp_path, hid, "reject", reason=reason, registry=REGISTRY)
    assert read_decision(tmp_path, hid) is None


def test_a_blocked_handoff_can_be_rejected_with_a_category(tmp_path: Path) -> None:
    hid = _submit(tmp_path, b'{"problem_statement": "cut off her')
    decision = decide(
        tmp_path, hid, "reject", reason=" cut off ", category="truncated", registry=REGISTRY
    )
    assert decision.reason == "cut off"
    assert decision.category is Category.TRUNCATED
    assert decision.verdict == "blocked"
    assert "truncated" in decision.codes


def test_a_second_decision_is_refused_naming_the_first(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    first = decide(tmp_path, hid, "approve", reviewer="ana", registry=REGISTRY)
    with pytest.raises(DecisionRefused) as refused:
        decide(tmp_path, hid, "reject", reason="no", reviewer="bo", registry=REGISTRY)
    message = str(refused.value)
    assert "approved by ana" in message
    assert first.decided_at in message
    assert "\n" not in message
    assert read_decision(tmp_path, hid) == first


def test_a_file_changed_since_review_is_refused(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    reviewed = inspect_in_run(tmp_path, hid, REGISTRY).sha256
    path = tmp_path / "handoffs" / f"{hid}.json"
    envelope = json.loads(path.read_bytes())
    envelope["raw"] = envelope["raw"].replace("churn", "growth")
    atomic_write(path, json.dumps(envelope).encode())
    with pytest.raises(DecisionRefused, match="changed since it was reviewed"):
        decide(tmp_path, hid, "approve", registry=REGISTRY, expected_sha256=reviewed)
    assert read_decision(tmp_path, hid) is None


def test_deciding_a_missing_handoff_is_refused(tmp_path: Path) -> None:
    _submit(tmp_path)
    with pytest.raises(DecisionRefused, match="no handoff 0009-plan"):
        decide(tmp_path, "0009-plan", "approve", registry=REGISTRY)


@pytest.mark.parametrize("reviewer", ["", "  ", "eve\x1b[2J", "a\nb"])
def test_a_reviewer_name_must_be_plain_text(tmp_path: Path, reviewer: str) -> None:
    hid = _submit(tmp_path)
    with pytest.raises(ValueError):
        decide(tmp_path, hid, "approve", reviewer=reviewer, registry=REGISTRY)
    assert read_decision(tmp_path, hid) is None


def test_a_corrupt_decision_is_an_error_never_an_approval(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    (tmp_path / "decisions" / f"{hid}.json").write_text('{"action": "approve"')
    with pytest.raises(DecisionCorrupt):
        read_decision(tmp_path, hid)
    with pytest.raises(DecisionRefused, match="unreadable"):
        decide(tmp_path, hid, "approve", registry=REGISTRY)


def test_a_decision_filed_under_another_id_is_corrupt(tmp_path: Path) -> None:
    first, second = _submit(tmp_path), _submit(tmp_path)
    decide(tmp_path, first, "approve", registry=REGISTRY)
    (tmp_path / "decisions" / f"{first}.json").rename(tmp_path / "decisions" / f"{second}.json")
    with pytest.raises(DecisionCorrupt, match="names"):
        read_decision(tmp_path, second)


def test_state_follows_verdict_decision_and_later_edits(tmp_path: Path) -> None:
    good, bad, other = _submit(tmp_path), _submit(tmp_path, b"{"), _submit(tmp_path)

    def state(hid: str) -> HandoffState:
        return state_of(inspect_in_run(tmp_path, hid, REGISTRY), read_decision(tmp_path, hid))

    assert (state(good), state(bad)) == (HandoffState.PENDING, HandoffState.BLOCKED)
    decide(tmp_path, good, "approve", registry=REGISTRY)
    decide(tmp_path, bad, "reject", reason="broken", registry=REGISTRY)
    decide(tmp_path, other, "approve", registry=REGISTRY)
    path = tmp_path / "handoffs" / f"{other}.json"
    atomic_write(path, path.read_bytes() + b"\n")
    assert state(good) is HandoffState.APPROVED
    assert state(bad) is HandoffState.REJECTED
    assert state(other) is HandoffState.CHANGED


def test_an_oversize_handoff_can_be_rejected_but_never_approved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hid = _submit(tmp_path, PLAN + b" " * 4096)
    monkeypatch.setattr(report_in_run, "MAX_HANDOFF_BYTES", 2048)
    with pytest.raises(DecisionRefused, match="oversize"):
        decide(tmp_path, hid, "approve", registry=REGISTRY)
    decision = decide(tmp_path, hid, "reject", reason="far too long", registry=REGISTRY)
    report = inspect_in_run(tmp_path, hid, REGISTRY)
    assert state_of(report, decision) is HandoffState.REJECTED


def test_a_handoff_replaced_by_a_folder_cannot_be_decided(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    path = tmp_path / "handoffs" / f"{hid}.json"
    path.unlink()
    path.mkdir()
    with pytest.raises(DecisionRefused, match="no handoff"):
        decide(tmp_path, hid, "reject", reason="gone", registry=REGISTRY)
    assert read_decision(tmp_path, hid) is None
