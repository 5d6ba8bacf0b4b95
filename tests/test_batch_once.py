"""A batch decide inspects each handoff once on every path (the CLI, the Gate, the review
screen's core): the selection's report is what it decides on, re-checking only the bytes'
sha256 at write time (issues 33 and 42). The count is the contract's own validator,
which writes each payload it validates to a file: a real inspection, not a stand-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli, submit
from signed_policy import signed_policy

from handoff_gate.gates.decide.batch import decide_many, open_handoffs
from handoff_gate.gates.decide.decisions import DecisionRequest
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.gates.trust.policy import Policy, Rule
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.tui.model import Entry
from handoff_gate.tui.review_core import ReviewCore

MODULE = '''
from pathlib import Path
from pydantic import BaseModel, field_validator

COUNT = Path(__file__).with_name("validated")

class Note(BaseModel):
    """A note whose every validation is counted in a file beside this module."""
    text: str

    @field_validator("text")
    @classmethod
    def _counted(cls, value: str) -> str:
        with COUNT.open("a") as out:
            out.write(value + "\\n")
        return value

SCHEMAS = {"note/v1": Note}
'''


def _run_with_notes(tmp_path: Path, count: int) -> tuple[Path, Path]:
    module = tmp_path / "notes.py"
    module.write_text(MODULE)
    run = tmp_path / "run"
    for n in range(count):
        done = cli(
            "submit", str(run), "--phase", "note", "--schema", "note/v1", "--schemas",
            str(module), "-", stdin=json.dumps({"text": f"note {n}"}).encode(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return run, module.with_name("validated")


def test_decide_pending_inspects_each_handoff_once(tmp_path: Path) -> None:
    run, counted = _run_with_notes(tmp_path, 3)
    counted.unlink(missing_ok=True)
    done = cli("decide", str(run), "--pending", "approve", "--schemas", str(tmp_path / "notes.py"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("approved by") == 3
    validated = counted.read_text().splitlines()
    assert sorted(validated) == ["note 0", "note 1", "note 2"]  # one inspection each


def test_a_handoff_changed_after_the_selection_is_inspected_again_and_refused(
    tmp_path: Path,
) -> None:
    """The one look binds to bytes: a batch never decides bytes it did not see."""
    run, _ = _run_with_notes(tmp_path, 2)
    setup = assemble(contracts=str(tmp_path / "notes.py"), env={})
    found = open_handoffs(setup, run, "approve")
    target = run / "handoffs" / "0002-note.json"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"note 1", b"note X"))
    seen = {s.ref.id: s.report for s in found}
    items = [(s.ref, s.ref.sha256) for s in found]
    results = decide_many(setup, run, items, DecisionRequest(action="approve"), seen=seen)
    assert [r.written for r in results] == [True, False]
    assert "changed" in results[1].refused


def test_the_gates_batch_inspects_each_handoff_once(tmp_path: Path) -> None:
    """``Gate.decide_many`` given only ids and digests: each item's one inspection is the
    one its decision makes."""
    run, counted = _run_with_notes(tmp_path, 3)
    counted.unlink(missing_ok=True)
    with Gate(contracts=str(tmp_path / "notes.py")) as gate:
        items = [(ref, gate.inspect(run, ref).sha256) for ref in gate.handoffs(run)]
        counted.unlink()  # what choosing the items cost is the caller's
        results = gate.decide_many(run, items, "approve", reviewer="rita")
    assert [r.written for r in results] == [True, True, True]
    assert sorted(counted.read_text().splitlines()) == ["note 0", "note 1", "note 2"]


def test_the_gates_batch_decides_on_the_reports_it_is_given(tmp_path: Path) -> None:
    """With the reports the items were chosen by (``seen``), nothing is inspected again:
    one inspection per handoff in all, the selection's."""
    run, counted = _run_with_notes(tmp_path, 3)
    counted.unlink(missing_ok=True)
    with Gate(contracts=str(tmp_path / "notes.py")) as gate:
        found = open_handoffs(gate.setup, run, "reject")
        seen = {s.ref.id: s.report for s in found}
        items = [(s.ref, s.ref.sha256) for s in found]
        results = gate.decide_many(run, items, "reject", seen=seen, reason="not now")
    assert [r.decision.action for r in results if r.decision] == [Action.REJECT] * 3
    assert sorted(counted.read_text().splitlines()) == ["note 0", "note 1", "note 2"]


def test_the_review_screens_batch_inspects_each_handoff_once(tmp_path: Path) -> None:
    """The review app's core decides marked entries through the Gate with the reports
    its list already holds: approving them inspects nothing again."""
    run, counted = _run_with_notes(tmp_path, 2)
    counted.unlink(missing_ok=True)
    with Gate(contracts=str(tmp_path / "notes.py")) as gate:
        entries = [Entry(ref, report=gate.inspect(run, ref)) for ref in gate.handoffs(run)]
        assert sorted(counted.read_text().splitlines()) == ["note 0", "note 1"]
        core = ReviewCore(gate, reviewer="rita")
        marked = [(entry, entry.report.sha256) for entry in entries if entry.report]
        done = core.decide_many(marked, Action.APPROVE)
    assert [finished.decision is not None for finished in done.results] == [True, True]
    assert sorted(counted.read_text().splitlines()) == ["note 0", "note 1"]


def test_a_batch_takes_no_keyword_it_does_not_know(tmp_path: Path) -> None:
    """``**options`` spelt once as a TypedDict still refuses a misspelt keyword."""
    run, _ = _run_with_notes(tmp_path, 1)
    with (
        Gate(contracts=str(tmp_path / "notes.py")) as gate,
        pytest.raises(TypeError, match="'reasn'"),
    ):
        gate.decide_many(run, [], "reject", reasn="typo")  # type: ignore[call-arg]


def test_a_signed_decision_works_out_its_phase_rule_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signer, the deadline and the quorum share the rule the decision looked up;
    with the selection's report standing for the inspection, that is the only look."""
    run = tmp_path / "run"
    submit(run)
    keys = signed_policy(tmp_path / "keys")
    looked: list[str] = []
    real = Policy.rule_for

    def counted(policy: Policy, phase: str) -> Rule | None:
        looked.append(phase)
        return real(policy, phase)

    with Gate(policy=keys.policy, key=keys.alice) as gate:
        [found] = open_handoffs(gate.setup, run, "approve")
        monkeypatch.setattr(Policy, "rule_for", counted)
        [result] = gate.decide_many(
            run, [(found.ref, found.ref.sha256)], "approve", seen={found.ref.id: found.report}
        )
    assert result.decision is not None and result.decision.principal == "alice"
    assert looked == ["plan"]
