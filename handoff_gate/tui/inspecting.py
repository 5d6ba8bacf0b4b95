"""Inspecting one handoff and settling its decisions, off the UI thread.

The standing is the core's (``gates.standing.standing``: the same function ``list``, ``show``
and ``Gate.standing`` ask), so the app names the same state and the same approvers in
the same order as the command line; here it only becomes what the app shows. This module
is loaded with ``review_core``, after the app's first screen is up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.standing.quorum import approved_bytes, leading_approvals
from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import ENDED, HandoffState
from handoff_gate.tui.model import UNSIGNED, Trust, key_of
from handoff_gate.tui.scan import Inspection

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef


def inspect_ref(
    ref: HandoffRef,
    registry: Registry,
    *,
    store: RunStore,
    policy: Policy | None = None,
) -> Inspection:
    """Inspect one handoff in ``store`` and settle its decisions; never raises (the
    standing shows every failure as blocked or unusable, so the app fails closed)."""
    found = standing(store, ref, registry, policy=policy)
    problem = found.problem if found.state is HandoffState.UNUSABLE else ""
    ended = found.problem if found.state in ENDED else ""
    return Inspection(
        key_of(ref),
        found.report,
        found.decision,
        problem,
        found.state,
        _trust(found, policy),
        ended,
        found.delivered,
    )


def _trust(found: Standing, policy: Policy | None) -> Trust:
    """The header's words on who may decide and who approved so far."""
    signer = _signer(found.report, policy, found.producer)
    if policy is None:
        return Trust(signer=signer)
    if found.rule is None:
        blocked = found.state is HandoffState.BLOCKED
        return Trust(signer=signer, rule_problem=found.problem if blocked else "")
    approvals = () if found.state is HandoffState.REJECTED else found.decisions
    counted, others = leading_approvals(approvals)
    apart = tuple(
        f"{d.principal or d.reviewer} approved {approved_bytes(d)}, "
        f"not {approved_bytes(counted[0])}: not counted with them"
        for d in others
    )
    return Trust(
        required=found.rule.required,
        approvals=tuple(d.principal or d.reviewer for d in counted),
        approvers=found.rule.approvers,
        signer=signer,
        producer=found.producer,
        refused=found.refused + apart,
    )


def _signer(report: Report, policy: Policy | None, producer: str | None) -> str:
    """How the header describes the producer's signature; ``producer`` is the signer
    whose signature verified under ``policy`` (``None``: none did, or no policy)."""
    envelope = report.envelope
    if envelope is None or envelope.signer is None:
        return UNSIGNED
    if policy is None:
        return f"signed as {envelope.signer} (not checked: no policy)"
    if producer == envelope.signer:
        return f"signed by {envelope.signer}"
    return f"signed as {envelope.signer}, but the signature does not verify"
