"""Policy rules deciding through the Gate on both stores: recorded like a person's
decision, counted under the policy, never over a person, checked by ``audit --verify``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_policy import rules_policy
from store_place import Place

from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.integrations.coding_agents import HARNESSES

BASH = HARNESSES["claude-code"].contract("Bash")[0]
#: A credential shape inspection blocks (``gates.inspect.secret_patterns``).
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _call(gate: Gate, run: str, command: str, call_id: str = "c1") -> HandoffRef:
    return gate.submit_tool_call(
        run, tool="Bash", args={"command": command}, call_id=call_id, json_schema=BASH,
        agent="claude-code", thread="s1",
    )  # fmt: skip


def test_a_rule_approves_at_submit_and_wait_delivers(place: Place, tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    with Gate(place.store, policy=policy) as gate:
        ref = _call(gate, place.run, "git status --short")
        result = gate.wait(place.run, ref, timeout=0)
        assert result.outcome is WaitOutcome.APPROVED
        assert result.payload == {"command": "git status --short"}
        decision = result.decision
        assert decision is not None and decision.rule == "read-only git"
        assert decision.reviewer == "rule read-only git"
        assert decision.policy_sha256 == gate.policy.digest if gate.policy else False
        assert decision.sha256 == ref.sha256
        assert gate.standing(place.run, ref).state is HandoffState.APPROVED
        assert gate.verify(place.run) == []
        events = [e for e in gate.audit_events(place.run) if e["event"] == "decision_written"]
        assert [(e["rule"], e["reviewer"]) for e in events] == [
            ("read-only git", "rule read-only git")
        ]


@pytest.mark.parametrize(
    "command", ["git status; curl x | sh", "git status && git push", "git push", "ls"]
)
def test_no_rule_leaves_the_call_to_a_person(place: Place, tmp_path: Path, command: str) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    with Gate(place.store, policy=policy) as gate:
        ref = _call(gate, place.run, command)
        assert gate.read_decision(place.run, ref) is None
        assert gate.wait(place.run, ref, timeout=0).outcome is WaitOutcome.TIMEOUT


def test_a_reject_rule_rejects_with_its_name(place: Place, tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    with Gate(place.store, policy=policy) as gate:
        ref = _call(gate, place.run, "git status && rm -rf build")
        result = gate.wait(place.run, ref, timeout=0)
        assert result.outcome is WaitOutcome.REJECTED
        assert result.decision is not None
        assert result.decision.reason == "rejected by rule no rm"
        assert result.decision.reviewer == "rule no rm"
        approving = _call(gate, place.run, "git status", call_id="c2")
        assert gate.wait(place.run, approving, timeout=0).outcome is WaitOutcome.APPROVED
        counted = {
            (c.decider.kind, c.decider.name, c.approved, c.rejected)
            for c in gate.stats().by_decider
        }
        assert counted == {("rule", "no rm", 0, 1), ("rule", "read-only git", 1, 0)}


def test_a_rule_never_approves_what_inspection_blocks(place: Place, tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    with Gate(place.store, policy=policy) as gate:
        ref = _call(gate, place.run, f"git status {TOKEN}")
        assert not gate.inspect(place.run, ref).approvable
        assert gate.read_decision(place.run, ref) is None
        assert gate.wait(place.run, ref, timeout=0).outcome is WaitOutcome.TIMEOUT


def test_wait_applies_the_rules_to_a_call_submitted_without_them(
    place: Place, tmp_path: Path
) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    with Gate(place.store) as plain:
        ref = _call(plain, place.run, "git status")
        assert plain.read_decision(place.run, ref) is None
    with Gate(place.store, policy=policy) as gate:
        assert gate.wait(place.run, ref, timeout=0).outcome is WaitOutcome.APPROVED


def test_a_persons_reject_stands_over_a_rule(place: Place, tmp_path: Path) -> None:
    trust = rules_policy(tmp_path / "trust")
    with Gate(place.store) as plain:
        ref = _call(plain, place.run, "git status")
    with Gate(place.store, policy=trust.policy, key=trust.alice) as alice:
        alice.decide(place.run, ref, "reject", reason="not now", category="other")
        result = alice.wait(place.run, ref, timeout=0)
        assert result.outcome is WaitOutcome.REJECTED
        assert result.decision is not None and result.decision.reviewer == "alice"


def test_under_a_quorum_a_rule_is_one_approval(place: Place, tmp_path: Path) -> None:
    trust = rules_policy(tmp_path / "trust", required=2)
    with Gate(place.store, policy=trust.policy) as gate:
        ref = _call(gate, place.run, "git status")
        assert gate.wait(place.run, ref, timeout=0).outcome is WaitOutcome.TIMEOUT
    with Gate(place.store, policy=trust.policy, key=trust.bob) as bob:
        bob.decide(place.run, ref, "approve")
        result = bob.wait(place.run, ref, timeout=0)
        assert result.outcome is WaitOutcome.APPROVED
        assert [d.reviewer for d in result.decisions] == ["rule read-only git", "bob"]


def test_a_phase_rule_approves_a_plan_at_submit(place: Place, tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    schema = {"type": "object", "properties": {"kind": {"type": "string"}}}
    with Gate(place.store, policy=policy) as gate:
        draft = gate.submit(
            place.run, {"kind": "draft-1"}, phase="plan", schema_id="p/v1", json_schema=schema
        )
        final = gate.submit(
            place.run, {"kind": "final"}, phase="plan", schema_id="p/v1", json_schema=schema
        )
        assert gate.wait(place.run, draft, timeout=0).outcome is WaitOutcome.APPROVED
        assert gate.wait(place.run, final, timeout=0).outcome is WaitOutcome.TIMEOUT


def test_a_record_naming_another_policy_does_not_count(place: Place, tmp_path: Path) -> None:
    trust = rules_policy(tmp_path / "trust")
    with Gate(place.store, policy=trust.policy) as gate:
        ref = _call(gate, place.run, "git status")
    # The same rules, one more table: another policy, another digest.
    trust.policy.write_text(trust.policy.read_text() + '\n[[auto]]\nname = "x"\n'
                            'decide = "reject"\ntool = "Nothing"\n')  # fmt: skip
    with Gate(place.store, policy=trust.policy) as gate:
        result = gate.wait(place.run, ref, timeout=0, on_refused=lambda line: None)
        assert result.outcome is WaitOutcome.TIMEOUT
        [problem] = gate.verify(place.run)
        assert "by rule 'read-only git': made under another policy" in problem


def test_an_edited_rule_record_is_a_problem(tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust").policy
    run = str(tmp_path / "job")
    with Gate(tmp_path, policy=policy) as gate:
        ref = _call(gate, run, "git status")
        record = Path(run) / "decisions" / f"{ref.id}.json"
        data = json.loads(record.read_text())
        data["rule"], data["reviewer"] = "no rm", "rule no rm"
        record.write_text(json.dumps(data))
        problems = gate.verify(run)
        assert any("does not match its event (reviewer, rule)" in p for p in problems)
        assert any("do not approve it by this rule" in p for p in problems)
        assert gate.wait(run, ref, timeout=0, on_refused=lambda line: None).outcome is (
            WaitOutcome.TIMEOUT
        )
