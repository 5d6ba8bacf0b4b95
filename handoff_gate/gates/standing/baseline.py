"""Whether an earlier handoff is approved, so it may be an append-only baseline.

If the baseline of an append-only check could be any earlier handoff, the agent would
pick it (submit a rewritten baton twice and the first, never decided, becomes the
second's baseline). So it is an approved handoff only, by the rules a wait uses, found
from the decision records themselves (``RunStore.decided_ids``), never from an index the
pipeline writes. Under a policy forged and unsigned records count for nothing; without
one every record that parses counts, and any reject keeps it from being approved.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision, DecisionCorrupt, parse_decision
from handoff_gate.gates.standing.phase_rule import NoRule, rule_of
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.placement import verified_producer
from handoff_gate.gates.trust.sshsig import SignatureError
from handoff_gate.gates.trust.statement import StatementError
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.envelope import Envelope

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


def approval(
    store: RunStore,
    run: str,
    handoff_id: str,
    data: bytes,
    envelope: Envelope,
    policy: Policy | None,
) -> str | None:
    """Whether the handoff whose current bytes are ``data`` stands approved now, and of
    what: ``""`` for its own bytes, an edit's sha256 for an approved edit, ``None`` when
    it is not approved. Approvals count together only of the same bytes, as a wait
    counts them."""
    try:
        records = store.decision_records(run, handoff_id)
    except (OSError, ValueError):
        return None
    name = store.run_name(run)
    sha256 = hashlib.sha256(data).hexdigest()
    parsed: list[tuple[str | None, Decision]] = []
    for slot, record in records.items():
        try:
            parsed.append((slot, parse_decision(record, name, handoff_id)))
        except DecisionCorrupt:
            continue
    if policy is None:
        if any(d.action is Action.REJECT for _, d in parsed):
            return None
        approvals = [d for _, d in parsed if d.action is Action.APPROVE and d.sha256 == sha256]
        return _first_group(approvals, 1)
    try:
        rule = rule_of(policy, handoff_id)
    except NoRule:
        return None
    producer = verified_producer(envelope, name, policy)
    counted: list[Decision] = []
    for slot, decision in parsed:
        if slot is None:
            continue
        problem = check_signed(
            decision, slot, policy=policy, rule=rule, sha256=sha256, producer=producer
        )
        if problem is not None:
            continue
        if decision.action is Action.REJECT:
            return None
        counted.append(decision)
    return _first_group(counted, rule.required)


def _first_group(approvals: list[Decision], required: int) -> str | None:
    """The bytes (``""``: the handoff's own, else an edit's sha256) whose approvals first
    number ``required``, in the order they were made."""
    counts: dict[str, int] = {}
    for decision in sorted(approvals, key=lambda d: d.decided_at):
        what = decision.edited_sha256 or ""
        counts[what] = counts.get(what, 0) + 1
        if counts[what] >= required:
            return what
    return None


def check_signed(
    decision: Decision,
    slot: str,
    *,
    policy: Policy,
    rule: Rule,
    sha256: str | None,
    producer: str | None,
) -> str | None:
    """Why a signed decision must be ignored, or ``None`` when it counts: ``quorum`` asks
    it too, so a baseline and a wait agree on what an approval is. ``sha256=None``
    checks all but the bytes it names: a veto's question (``quorum._veto``)."""
    if decision.signature is None or decision.log_head is None:
        return "unsigned"
    if decision.principal != slot:
        return f"filed as {slot!r} but made by {decision.principal!r}"
    if sha256 is not None and decision.sha256 != sha256:
        return "made for other bytes (sha256 differs)"
    try:
        statement = decision.statement(slot, decision.log_head)
        policy.signers.verify(statement, decision.signature, slot)  # key valid now
    except (SignatureError, StatementError, ValueError) as exc:
        return f"signature: {exc}"
    if slot not in rule.approvers:
        return f"{slot!r} is not an approver of phase {rule.phase!r}"
    if producer is not None and slot == producer:
        return f"{slot!r} produced this handoff and may not decide it"
    return None
