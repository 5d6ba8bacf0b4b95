"""Whether an earlier handoff is approved, so it may be an append-only baseline.

An append-only check compares a handoff with what came before it in its run. If what
came before could be any earlier handoff, the agent picks it: submit a rewritten baton
twice and the first, never decided, becomes the second's baseline; forge a reject of
the approved one and it stops being one. So the baseline is an approved handoff only,
decided by the same rules a wait uses, and found from the decision records themselves
(``RunStore.decided_ids``), never from an index the pipeline writes: emptying or
editing the contract index changes nothing.

Under a policy, approved means ``required`` valid signed approvals of its current bytes
by approvers of its phase (``signed_check``) and no valid signed reject; forged and
unsigned records count for nothing either way. Without a policy nothing can be
verified, so every record that parses counts: an approval of its current bytes makes it
approved, any reject keeps it from being so. The baseline is what the next phase
received: a reviewer's approved edit when the approval was of one, counted only among
approvals of the same edit, as a wait counts them.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision, DecisionCorrupt, parse_decision
from handoff_gate.gates.standing.phase_rule import NoRule, rule_of
from handoff_gate.gates.standing.signed_check import check_signed
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.placement import verified_producer
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.envelope import Envelope

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


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
    it is not approved. Under a quorum only approvals of the same bytes (the same edit,
    or none) count together, as a wait counts them; the first such group to reach the
    rule's ``required``, in the order the approvals were made, is what was delivered."""
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
