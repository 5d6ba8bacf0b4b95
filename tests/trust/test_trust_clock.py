"""Key validity windows are judged by the verifier's clock, never by a record's own time.

The attacker holds a real key whose allowed_signers line has a window that excludes
now: revoked (``valid-before`` in the past) or not yet valid (``valid-after`` in the
future). It signs a decision with a ``decided_at`` inside the window, with ssh-keygen,
and files it the way decide would. A pinned wait must not deliver it, and
``audit --verify`` must report it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_helpers import cli, submit
from trust_helpers import Keys, forge_decision

from handoff_gate.gates.audit.verify import verify_run
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.decisions import DecisionRequest, decide
from handoff_gate.gates.standing.quorum import settle
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.states import HandoffState

REGISTRY = load_registry("")
STORE = FilesystemStore()
REVOKED = 'valid-before="20200101Z"'
NOT_YET = 'valid-after="20300101Z"'
BACKDATED = "2019-06-01T12:00:00.000Z"
FORWARD_DATED = "2031-06-01T12:00:00.000Z"


def _trust(tmp_path: Path, keys: Keys, window: str) -> Path:
    """A policy where alice's key has ``window`` and bob's none; one approval approves."""
    trust = tmp_path / "trust"
    trust.mkdir()
    (trust / "allowed_signers").write_text(
        f'alice namespaces="handoff-gate",{window} {keys.public(keys.alice)}\n'
        f"bob {keys.public(keys.bob)}\n"
    )
    (trust / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["alice", "bob"]\n'
    )
    return trust / "policy.toml"


@pytest.mark.parametrize(
    ("window", "decided_at", "problem"),
    [(REVOKED, BACKDATED, "backdated"), (NOT_YET, FORWARD_DATED, "forward-dated")],
)
def test_a_record_dated_inside_its_keys_window_does_not_approve(
    tmp_path: Path, keys: Keys, window: str, decided_at: str, problem: str
) -> None:
    policy = _trust(tmp_path, keys, window)
    run = tmp_path / "run"
    hid = submit(run)
    forge_decision(run, hid, keys.alice, "alice", decided_at)
    digest = cli("policy", str(policy)).stdout.split("sha256 ")[-1].strip()
    pinned = ("--policy", str(policy), "--policy-sha256", digest)
    waited = cli("wait", str(run), hid, "--timeout", "0.5", *pinned)
    assert waited.returncode == 3, waited.stdout + waited.stderr  # not delivered
    assert waited.stdout == ""
    assert "decision by 'alice' ignored" in waited.stderr and "is not valid" in waited.stderr
    verified = cli("audit", str(run), "--verify", "--policy", str(policy))
    assert verified.returncode == 1
    assert "at its logged time" in verified.stdout and problem in verified.stdout


def test_the_verifiers_clock_is_a_parameter(tmp_path: Path, keys: Keys) -> None:
    """The same record counts when the verifier's clock is inside the window: what
    decides is the clock the verifier is given, never the record's own time."""
    policy = Policy.load(_trust(tmp_path, keys, NOT_YET))
    run = tmp_path / "run"
    hid = submit(run)
    forge_decision(run, hid, keys.alice, "alice", FORWARD_DATED)
    assert settle(STORE, run, hid, REGISTRY, policy).outcome is None
    in_2031 = policy.at_clock(lambda: datetime(2031, 7, 1, tzinfo=UTC))
    assert settle(STORE, run, hid, REGISTRY, in_2031).outcome is HandoffState.APPROVED


def test_an_honest_approval_stops_counting_once_its_key_is_revoked(
    tmp_path: Path, keys: Keys
) -> None:
    """Made now by a key valid until 2030; a waiter whose clock says 2031 refuses it."""
    policy = Policy.load(_trust(tmp_path, keys, 'valid-before="20300101Z"'))
    run = tmp_path / "run"
    hid = submit(run)
    context = GateContext(STORE, REGISTRY, policy, SigningKey(keys.alice))
    decide(context, run, hid, DecisionRequest(action="approve"))
    assert settle(STORE, run, hid, REGISTRY, policy).outcome is HandoffState.APPROVED
    assert verify_run(run, STORE, policy) == []
    later = policy.at_clock(lambda: datetime(2031, 1, 1, tzinfo=UTC))
    settled = settle(STORE, run, hid, REGISTRY, later)
    assert settled.outcome is None
    assert any("is not valid for 'alice'" in line for line in settled.refused)
