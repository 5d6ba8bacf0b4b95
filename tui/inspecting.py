"""Inspecting one handoff and settling its decisions, off the UI thread.

This is where the TUI reaches the core's inspection, decision and policy modules; they
are imported only here and in ``deciding``, which the app reaches through ``core.Core``
once its first screen is up (see ``backend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.run.decision_record import DecisionCorrupt, read_decision, run_name_of
from handoff_gate.gates.run.phase_rule import NoRule
from handoff_gate.gates.run.placement import verified_producer
from handoff_gate.gates.run.quorum import Outcome, settle
from handoff_gate.gates.run.report_in_run import blocked_report, inspect_in_run
from handoff_gate.gates.view.decision_problem import standing, unusable_reason
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState, state_of
from handoff_gate.tui.model import NO_TRUST, Stamp, Trust
from handoff_gate.tui.scan import LOCAL, Inspection, decision_stamp

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.run.decision_record import Decision
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.store.filesystem import HandoffRef
    from handoff_gate.gates.trust.policy import Policy


def inspect_ref(
    ref: HandoffRef,
    registry: Registry,
    *,
    store: RunStore | None = None,
    policy: Policy | None = None,
) -> Inspection:
    """Inspect one handoff and settle its decisions; never raises.

    ``store`` is where the run lives (the filesystem when ``None``; the run's key is
    ``str(ref.run_dir)`` either way). ``gates`` already turns every problem with the
    bytes into a finding; anything else that goes wrong here (a path that cannot be
    resolved, a store that went away) is shown as blocked too, so the app fails closed
    and keeps running.
    """
    store = store or LOCAL
    run = str(ref.run_dir)
    local = store.is_local
    # Whether the run has a decision for it: none (most handoffs) means nothing to read.
    dstamp = decision_stamp(ref.run_dir, ref.id) if local else None
    try:
        report = inspect_in_run(run, ref.id, registry, policy=policy, store=store)
    except Exception as exc:  # fail closed: the app must outlive any one bad file
        report = blocked_report(Code.INTERNAL_ERROR, f"could not inspect {ref.id}: {exc!r}")
    key = (ref.run_dir, ref.id)
    try:
        if policy is None:
            decision, problem = _unsigned_decision(store, run, ref.id, local, dstamp)
            state, problem = standing(report, decision, problem)
            trust = Trust(signer=_signer(report, None, None))
        else:
            return Inspection(key, *_settled(store, run, ref, registry, policy, report))
    except Exception as exc:  # a store that failed mid-way: show it, never approve
        decision, state = None, HandoffState.UNUSABLE
        problem, trust = f"the decisions cannot be read: {exc}", NO_TRUST
    return Inspection(key, report, decision, problem, state, trust)


def _unsigned_decision(
    store: RunStore, run: str, handoff_id: str, local: bool, decision_stamp: Stamp | None
) -> tuple[Decision | None, str]:
    if local and decision_stamp is None:  # no decision file: nothing to read
        return None, ""
    try:
        return read_decision(run, handoff_id, store), ""
    except DecisionCorrupt as exc:
        return None, unusable_reason(exc)
    except (ValueError, OSError, RuntimeError) as exc:
        return None, f"the decision record cannot be read: {exc}"


def _signer(report: Report, policy: Policy | None, producer: str | None) -> str:
    """How the header describes the producer's signature; ``producer`` is the signer
    whose signature verified under ``policy`` (``None``: none did, or no policy)."""
    envelope = report.envelope
    if envelope is None or envelope.signer is None:
        return "unsigned"
    if policy is None:
        return f"signed as {envelope.signer} (not checked: no policy)"
    if producer == envelope.signer:
        return f"signed by {envelope.signer}"
    return f"signed as {envelope.signer}, but the signature does not verify"


def _settled(
    store: RunStore,
    run: str,
    ref: HandoffRef,
    registry: Registry,
    policy: Policy,
    report: Report,
) -> tuple[Report, Decision | None, str, HandoffState, Trust]:
    """Report, decision, problem, state and trust of a handoff under ``policy``."""
    envelope = report.envelope
    producer = None
    if envelope is not None:
        producer = verified_producer(envelope, run_name_of(run, store), policy)
    signer = _signer(report, policy, producer)
    try:
        settlement = settle(store, run, ref.id, registry, policy)
    except NoRule as exc:
        trust = Trust(signer=signer, producer=producer, rule_problem=str(exc))
        return report, None, "", HandoffState.BLOCKED, trust
    except OSError as exc:
        if store.decision_records(run, ref.id):
            problem = f"the handoff cannot be read, so its decisions cannot be checked: {exc}"
            return report, None, problem, HandoffState.UNUSABLE, Trust(signer=signer)
        return report, None, "", state_of(report, None), Trust(signer=signer)
    rule = policy.rule_for(ref.phase)
    trust = Trust(
        required=rule.required if rule is not None else 0,
        approvals=tuple(d.principal or d.reviewer for d in settlement.decisions),
        approvers=rule.approvers if rule is not None else (),
        signer=signer,
        producer=producer,
        refused=settlement.refused,
    )
    outcome = settlement.outcome
    if outcome is None:
        return report, None, "", state_of(report, None), trust
    decision = settlement.decisions[-1] if settlement.decisions else None
    state = {
        Outcome.APPROVED: HandoffState.APPROVED,
        Outcome.REJECTED: HandoffState.REJECTED,
        Outcome.CHANGED: HandoffState.CHANGED,
    }[outcome]
    if outcome is Outcome.REJECTED:
        trust = Trust(
            required=trust.required,
            approvers=trust.approvers,
            signer=signer,
            producer=producer,
            refused=trust.refused,
        )
    return report, decision, "", state, trust
