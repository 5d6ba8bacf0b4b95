"""Withdraw and expiry on both stores: terminal ends that fail closed.

What a pipeline developer and a reviewer would notice: a handoff the pipeline gave up on
still approvable, a wait that never returns for it, an expired handoff approved through
some path (the API, the CLI, a batch), a deadline that can be edited under a signature,
or the audit log not saying who withdrew what.
"""

from __future__ import annotations

import json
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_helpers import BOUND, GATE, cli
from store_place import Place
from trust.trust_helpers import make_key

import handoff_gate as hg
from handoff_gate.gates.submit.placement import verified_producer
from handoff_gate.gates.vocab.deadline import is_past, parse_duration, short
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.schemas import example_path

PLAN = example_path("plan/v1").read_bytes()


def events(gate: hg.Gate, run: str, name: str) -> list[dict[str, object]]:
    return [e for e in gate.audit_events(run) if e["event"] == name]


def soon_expired(gate: hg.Gate, run: str) -> hg.HandoffRef:
    """A handoff whose deadline is a second away, returned once it has passed."""
    deadline = datetime.now(UTC) + timedelta(seconds=1)
    ref = gate.submit(run, PLAN, phase="plan", schema_id="plan/v1", expires_at=deadline)
    while not is_past(gate.inspect(run, ref).envelope.expires_at):  # type: ignore[union-attr]
        time.sleep(0.05)
    return ref


def test_a_withdrawn_handoff_refuses_decisions_and_ends_its_wait(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        done = gate.withdraw(place.run, ref, reason="the job was cancelled", by="ci@build")
        assert (done.by, done.reason) == ("ci@build", "the job was cancelled")
        stood = gate.standing(place.run, ref)
        assert stood.state is hg.HandoffState.WITHDRAWN
        assert "withdrawn by ci@build" in stood.problem and "cancelled" in stood.problem
        with pytest.raises(hg.DecisionRefused, match="withdrawn"):
            gate.decide(place.run, ref, "approve", reviewer="ana")
        result = gate.wait(place.run, ref, timeout=BOUND)
        assert result.outcome is hg.WaitOutcome.WITHDRAWN
        assert result.payload is None and "ci@build" in result.ended
        with pytest.raises(hg.WithdrawRefused, match="already withdrawn"):
            gate.withdraw(place.run, ref)
        logged = events(gate, place.run, "handoff_withdrawn")
        assert [(e["handoff"], e["by"], e["reason"]) for e in logged] == [
            (ref.id, "ci@build", "the job was cancelled")
        ]
        assert [e["outcome"] for e in events(gate, place.run, "wait_returned")] == ["withdrawn"]
        assert gate.verify(place.run) == []


def test_a_decided_handoff_cannot_be_withdrawn(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        gate.decide(place.run, ref, "approve", reviewer="ana")
        with pytest.raises(hg.WithdrawRefused, match="already approved"):
            gate.withdraw(place.run, ref)
        assert gate.wait(place.run, ref, timeout=BOUND).outcome is hg.WaitOutcome.APPROVED


def test_withdraw_on_the_command_line_and_a_blocked_wait_exits_6(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
    waiting = subprocess.Popen(
        [*GATE, *place.store_args, "wait", place.run, ref.id, "--timeout", str(BOUND), "--poll"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    done = cli(*place.store_args, "withdraw", place.run, ref.id, "--reason", "gave up")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{ref.id} withdrawn by ")
    out, err = waiting.communicate(timeout=BOUND)
    assert waiting.returncode == 6, err
    assert out == "" and "gave up; nothing delivered" in err
    again = cli(*place.store_args, "withdraw", place.run, ref.id)
    assert again.returncode == 1 and "already withdrawn" in again.stderr
    decided = cli(*place.store_args, "decide", place.run, ref.id, "approve")
    assert decided.returncode == 1 and "withdrawn" in decided.stderr
    listed = cli(*place.store_args, "list", *(() if place.store_args else (place.run,)), "--json")
    assert [row["state"] for row in json.loads(listed.stdout)] == ["withdrawn"]
    shown = cli(*place.store_args, "show", place.run, ref.id).stdout.splitlines()
    assert "state: withdrawn" in shown and "decision: none" in shown
    assert any(line.startswith(f"ended: {ref.id} was withdrawn by ") for line in shown)
    missing = cli(*place.store_args, "withdraw", place.run, "0009-plan")
    assert missing.returncode == 2 and "no handoff 0009-plan in" in missing.stderr


def test_an_expired_handoff_cannot_be_approved_by_any_path(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = soon_expired(gate, place.run)
        stood = gate.standing(place.run, ref)
        assert stood.state is hg.HandoffState.EXPIRED
        assert stood.problem.startswith(f"{ref.id} expired at ")
        with pytest.raises(hg.DecisionRefused, match="expired at"):
            gate.decide(place.run, ref, "approve", reviewer="ana")
        batch = gate.decide_many(place.run, [(ref, ref.sha256)], "approve", reviewer="ana")
        assert not batch[0].written and "expired at" in batch[0].refused
        result = gate.wait(place.run, ref, timeout=BOUND)
        assert result.outcome is hg.WaitOutcome.EXPIRED and result.payload is None
    one = cli(*place.store_args, "decide", place.run, ref.id, "approve")
    assert one.returncode == 1 and "expired at" in one.stderr
    pending = cli(*place.store_args, "decide", place.run, "--pending", "approve")
    assert (pending.returncode, pending.stdout) == (0, "")
    ids = cli(
        *place.store_args, "decide", place.run, "--ids", "-", "approve",
        stdin=f"{ref.id} {ref.sha256}\n".encode(),
    )  # fmt: skip
    assert ids.returncode == 1 and "expired at" in ids.stdout
    waited = cli(*place.store_args, "wait", place.run, ref.id, "--timeout", str(BOUND))
    assert waited.returncode == 5 and "expired at" in waited.stderr
    with hg.Gate(place.store) as gate:
        assert events(gate, place.run, "decision_written") == []
        outcomes = [e["outcome"] for e in events(gate, place.run, "wait_returned")]
        assert outcomes == ["expired", "expired"]
        assert gate.standing(place.run, ref).state is hg.HandoffState.EXPIRED


def test_a_decision_before_the_deadline_stands_after_it(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        deadline = datetime.now(UTC) + timedelta(seconds=1)
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1", expires_at=deadline)
        gate.decide(place.run, ref, "approve", reviewer="ana")
        while not is_past(gate.inspect(place.run, ref).envelope.expires_at):  # type: ignore[union-attr]
            time.sleep(0.05)
        assert gate.standing(place.run, ref).state is hg.HandoffState.APPROVED
        assert gate.wait(place.run, ref, timeout=BOUND).outcome is hg.WaitOutcome.APPROVED


def test_the_deadline_is_part_of_the_submitted_bytes(tmp_path: Path) -> None:
    run = tmp_path / "job"
    done = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "--expires-in", "2h",
               "-", stdin=PLAN)  # fmt: skip
    assert done.returncode == 0, done.stderr
    envelope = json.loads((run / "handoffs" / "0001-plan.json").read_text())
    left = datetime.fromisoformat(envelope["expires_at"]) - datetime.now(UTC)
    assert timedelta(hours=1, minutes=59) < left <= timedelta(hours=2)
    with hg.Gate(str(tmp_path)) as gate:
        assert gate.standing(str(run), "0001-plan").state is hg.HandoffState.PENDING
        assert gate.decide(str(run), "0001-plan", "approve", reviewer="ana")


@pytest.mark.parametrize("bad", ["90", "5x", "0s", "-1h", "1.5h", "400d", ""])
def test_a_bad_expires_in_exits_2_and_stores_nothing(tmp_path: Path, bad: str) -> None:
    run = tmp_path / "job"
    done = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "--expires-in", bad,
               "-", stdin=PLAN)  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (run / "handoffs").exists()


def test_durations_read_as_people_write_them() -> None:
    assert [parse_duration(t) for t in ("90s", "30m", "2h", "7d")] == [
        timedelta(seconds=90),
        timedelta(minutes=30),
        timedelta(hours=2),
        timedelta(days=7),
    ]
    assert [short(timedelta(seconds=s)) for s in (45, 750, 3 * 3600 + 5, 2 * 86400)] == [
        "45s",
        "12m",
        "3h",
        "2d",
    ]


def test_api_refuses_a_past_or_double_deadline(tmp_path: Path) -> None:
    with hg.Gate(str(tmp_path)) as gate:
        run = str(tmp_path / "job")
        past = datetime.now(UTC) - timedelta(seconds=1)
        with pytest.raises(ValueError, match="already passed"):
            gate.submit(run, PLAN, phase="plan", schema_id="plan/v1", expires_at=past)
        with pytest.raises(ValueError, match="not both"):
            gate.submit(
                run, PLAN, phase="plan", schema_id="plan/v1", expires_in="1h", expires_at=past
            )
        assert gate.runs() == []


@pytest.fixture
def producing(tmp_path: Path) -> tuple[Path, Path]:
    """A policy whose plan phase is produced by a signing planner and expires in 2h."""
    folder = tmp_path / "trust"
    folder.mkdir()
    planner, bob = make_key(folder / "planner"), make_key(folder / "bob")
    lines = [
        f"{name} {' '.join(key.with_suffix('.pub').read_text().split()[:2])}"
        for name, key in (("planner", planner), ("bob", bob))
    ]
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["bob"]\nproducers = ["planner"]\nexpires_in = "2h"\n'
    )
    return policy, planner


def test_a_policy_rule_gives_its_phase_a_signed_deadline(
    tmp_path: Path, producing: tuple[Path, Path]
) -> None:
    policy, planner = producing
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path), policy=policy, key=planner) as gate:
        ref = gate.submit(run, PLAN, phase="plan", schema_id="plan/v1")
        envelope = gate.inspect(run, ref).envelope
        assert envelope is not None and envelope.expires_at is not None
        left = datetime.fromisoformat(envelope.expires_at) - datetime.now(UTC)
        assert timedelta(hours=1, minutes=59) < left <= timedelta(hours=2)
        assert verified_producer(envelope, "job", gate.policy) == "planner"  # type: ignore[arg-type]
        later = envelope.model_copy(update={"expires_at": "2099-01-01T00:00:00.000Z"})
        assert verified_producer(later, "job", gate.policy) is None  # type: ignore[arg-type]
        dropped = Envelope.model_validate(
            envelope.model_dump(by_alias=True, exclude={"expires_at"})
        )
        assert verified_producer(dropped, "job", gate.policy) is None  # type: ignore[arg-type]
    done = cli("submit", run, "--phase", "plan", "--schema", "plan/v1", "--key", str(planner),
               "--policy", str(policy), "-", stdin=PLAN)  # fmt: skip
    assert done.returncode == 0, done.stderr
    second = json.loads((Path(run) / "handoffs" / "0002-plan.json").read_text())
    assert second["expires_at"] > envelope.expires_at


def test_a_policy_rule_gives_a_tool_call_its_deadline_too(
    tmp_path: Path, producing: tuple[Path, Path]
) -> None:
    policy, planner = producing
    schema = {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}
    with hg.Gate(str(tmp_path), policy=policy, key=planner) as gate:
        ref = gate.submit_tool_call(
            str(tmp_path / "job"), tool="send", args={"to": "ana"}, call_id="c1",
            json_schema=schema, phase="plan",
        )  # fmt: skip
        envelope = gate.inspect(str(tmp_path / "job"), ref).envelope
    assert envelope is not None and envelope.expires_at is not None
    left = datetime.fromisoformat(envelope.expires_at) - datetime.now(UTC)
    assert timedelta(hours=1, minutes=59) < left <= timedelta(hours=2)


def test_a_policy_expires_in_that_is_not_a_duration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "allowed_signers").write_text("")
    policy = tmp_path / "policy.toml"
    policy.write_text('[[rule]]\nphase = "plan"\napprovers = ["bob"]\nexpires_in = "soon"\n')
    done = cli("policy", str(policy))
    assert done.returncode == 2
    assert "expires_in" in done.stderr
