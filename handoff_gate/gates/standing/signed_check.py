"""Whether one signed decision record counts under a policy, and if not, why.

Shared by ``standing.quorum`` and ``standing.baseline``, which must agree on what an
approval is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.trust.sshsig import SignatureError
from handoff_gate.gates.trust.statement import StatementError

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


def check_signed(
    decision: Decision,
    slot: str,
    *,
    policy: Policy,
    rule: Rule,
    sha256: str | None,
    producer: str | None,
) -> str | None:
    """Why a signed decision must be ignored, or ``None`` when it counts. ``sha256=None``
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
