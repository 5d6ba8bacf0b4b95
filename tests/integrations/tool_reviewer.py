"""A reviewer for the tool-approval adapters' tests: real ``decide`` calls, made once the
tool-call handoffs a turn asks for have all appeared, as a person at the TUI would."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path

from trust.trust_helpers import make_key

import handoff_gate as hg
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey

BOUND = 30.0
#: What the reviewer does with each call, by call id: ``(action, reason)``.
Plan = Mapping[str, tuple[str, str | None]]


def calls_in(run: Path) -> dict[str, str]:
    """The run's tool-call handoffs: handoff id by call id."""
    if not (run / "handoffs").is_dir():
        return {}
    found: dict[str, str] = {}
    with hg.Gate(run.parent) as gate:
        for ref in gate.handoffs(run.name):
            envelope = gate.inspect(run.name, ref).envelope
            if envelope is not None and envelope.tool is not None:
                found[envelope.tool.call_id] = ref.id
    return found


async def review(
    run: Path, plan: Plan, *, policy: Policy | None = None, key: SigningKey | None = None
) -> dict[str, str]:
    """Wait until every call of ``plan`` has its handoff, then decide each; the handoff
    ids by call id. Deciding only once all are there shows they were asked together."""
    async with asyncio.timeout(BOUND):
        while not set(plan) <= set(found := calls_in(run)):
            await asyncio.sleep(0.02)
    with hg.Gate(run.parent, policy=policy, key=key) as gate:
        for call_id, (action, reason) in plan.items():
            who = None if key is not None else "ops@host"
            gate.decide(run.name, found[call_id], action, reason=reason, reviewer=who)
    return found


def review_in_thread(run: Path, plan: Plan) -> threading.Thread:
    """``review`` on a thread of its own, for a framework whose run blocks the loop."""
    thread = threading.Thread(target=lambda: asyncio.run(review(run, plan)), daemon=True)
    thread.start()
    return thread


def approver_policy(folder: Path, phase: str = "tool-call") -> tuple[Policy, SigningKey]:
    """A policy under which only alice's signed approval counts for ``phase``, and her key."""
    folder.mkdir(parents=True, exist_ok=True)
    key = make_key(folder / "alice")
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f"alice {public}\n")
    path = folder / "policy.toml"
    path.write_text(
        f'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "{phase}"\n'
        'approvers = ["alice"]\nrequired = 1\n'
    )
    return Policy.load(path), SigningKey(key)
