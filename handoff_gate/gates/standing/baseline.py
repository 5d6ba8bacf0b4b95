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
        return _approved_bytes(approvals, 1)
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
    return _approved_bytes(counted, rule.required)


def _approved_bytes(approvals: list[Decision], required: int) -> str | None:
    """The bytes (``""``: the handoff's own, else an edit's sha256) whose approvals first
    number ``required``, counted as a wait counts them (``first_quorum``)."""
    quorum = first_quorum(sorted(approvals, key=made), required)
    return None if quorum is None else quorum[0].edited_sha256 or ""


def made(decision: Decision) -> tuple[str, str]:
    """When a decision was made, then by whom: the order approvals are named in. The
    stamps have one fixed spelling (``parse_stamp``), so they sort as text."""
    return decision.decided_at, decision.principal or ""


def first_quorum(approvals: list[Decision], required: int) -> tuple[Decision, ...] | None:
    """The approvals of the byte string whose ``required``-th approval came first (the
    approvals in the order they were made), or ``None`` while none has its quorum."""
    by_bytes: dict[str | None, list[Decision]] = {}
    for decision in approvals:
        same = by_bytes.setdefault(decision.edited_sha256, [])
        same.append(decision)
        if len(same) == required:
            return tuple(same)
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
