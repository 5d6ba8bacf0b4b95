"""A policy's ``[[auto]]`` rule deciding a handoff: recorded like a person's decision.

Applied before anyone is asked. A rule never overrides anyone: a handoff that already
has any decision record, has ended, or whose bytes changed since the caller's ref is
left alone, and what inspection blocks goes to a person. Whether the record then counts
is ``audit.rule_record``'s judgement, like every reader's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import Decision, codes_of, record_bytes
from handoff_gate.gates.rules.judge import rule_for, subject_of
from handoff_gate.gates.standing.ending import deadline, ending
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.base import DecisionExists, RunStore
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.ids import validate_id

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.rules.auto import AutoRule
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.report import Report


def decide_by_rule(
    store: RunStore,
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    registry: Registry,
    policy: Policy | None,
    on_warning: Callable[[str], None] | None = None,
) -> Decision | None:
    """The decision a policy rule made and recorded for the handoff, or ``None`` when no
    rule decides it now (see the module docstring); ``OSError`` when the store fails
    before the record stands."""
    if policy is None or not policy.auto:
        return None
    handoff_id = validate_id(handoff_id_of(ref_or_id))
    where = os.fspath(run)
    if store.decision_records(where, handoff_id):
        return None
    report = inspect_in_run(where, handoff_id, registry, policy=policy, store=store)
    rule = _deciding(store, where, handoff_id, ref_or_id, report, policy)
    if rule is None:
        return None
    decision = Decision(
        handoff=handoff_id,
        run=store.run_name(where),
        action=rule.decide,
        reason=f"rejected by rule {rule.name}" if rule.decide is Action.REJECT else None,
        category=Category.OTHER if rule.decide is Action.REJECT else None,
        reviewer=rule.decided_by,
        decided_at=audit.now_iso(),
        sha256=report.sha256,
        verdict=report.verdict,
        codes=codes_of([f.code.value for f in report.findings]),
        rule=rule.name,
        policy_sha256=policy.digest,
    )
    data = record_bytes(decision)
    event = audit.written_event(
        decision.model_dump(mode="json"), rule=decision.rule, policy_sha256=decision.policy_sha256
    )
    try:
        store.create_decision(where, handoff_id, None, data, event)
    except DecisionExists:
        return None  # someone decided first: their record stands
    except OSError as exc:
        if store.decision_records(where, handoff_id).get(None) != data:
            raise
        if on_warning is not None:
            on_warning(f"{handoff_id}: the rule's decision stands but was not logged: {exc}")
    return decision


def _deciding(
    store: RunStore,
    run: str,
    handoff_id: str,
    ref_or_id: HandoffRef | str,
    report: Report,
    policy: Policy,
) -> AutoRule | None:
    """The rule that decides the handoff as it stands, if it may decide it now."""
    envelope = report.envelope
    if envelope is None or not report.sha256:
        return None
    if isinstance(ref_or_id, HandoffRef) and ref_or_id.sha256 not in ("", report.sha256):
        return None
    try:
        rule = rule_for(policy.auto, subject_of(envelope))
    except ValueError:
        return None
    if rule is None:
        return None
    phase_rule = policy.rule_for(envelope.phase)
    if rule.decide is Action.APPROVE and (
        not report.approvable or phase_rule is None or not phase_rule.auto
    ):
        return None
    expires_at = deadline(envelope.expires_at, envelope.created, phase_rule)
    if ending(store, run, handoff_id, expires_at) is not None:
        return None
    return rule
