"""What the app shows of one handoff's standing.

The standing is the core's (``Gate.standing``'s, shared through ``gates.notify.source``:
the same function ``list`` and ``show`` ask), so the app names the same state and the same
approvers in the same order as the command line; here it only becomes what the app shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.vocab.states import ENDED, HandoffState
from handoff_gate.tui.model import UNSIGNED, Trust, key_of
from handoff_gate.tui.scan import Inspection

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Standing
    from handoff_gate.gates.vocab.report import Report


def inspection(found: Standing, *, policy: bool) -> Inspection:
    """The app's view of ``found``, settled under a policy when ``policy`` (the standing
    shows every failure as blocked or unusable, so the app fails closed)."""
    problem = found.problem if found.state is HandoffState.UNUSABLE else ""
    ended = found.problem if found.state in ENDED else ""
    return Inspection(
        key_of(found.ref),
        found.report,
        found.decision,
        problem,
        found.state,
        _trust(found, policy),
        ended,
        found.delivered,
    )


def _trust(found: Standing, policy: bool) -> Trust:
    """The header's words on who may decide and who approved so far."""
    signer = _signer(found.report, policy, found.producer)
    if not policy:
        return Trust(signer=signer)
    if found.rule is None:
        blocked = found.state is HandoffState.BLOCKED
        return Trust(signer=signer, rule_problem=found.problem if blocked else "")
    counted, apart = found.counted()
    return Trust(
        required=found.rule.required,
        approvals=tuple(d.principal or d.reviewer for d in counted),
        approvers=found.rule.approvers,
        signer=signer,
        producer=found.producer,
        refused=found.refused + apart,
    )


def _signer(report: Report, policy: bool, producer: str | None) -> str:
    """How the header describes the producer's signature; ``producer`` is the signer
    whose signature verified under the policy (``None``: none did, or no policy)."""
    envelope = report.envelope
    if envelope is None or envelope.signer is None:
        return UNSIGNED
    if not policy:
        return f"signed as {envelope.signer} (not checked: no policy)"
    if producer == envelope.signer:
        return f"signed by {envelope.signer}"
    return f"signed as {envelope.signer}, but the signature does not verify"
