"""``audit --verify``'s look at a signed decision's signature, and at when it says it was made.

A signer chooses its record's ``decided_at``, so a waiter never judges a key by it.
Looking back, the log holds times the signer did not choose alone: its event's ``at``
and that of the line its ``log_head`` names, which existed before the decision.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.audit.decision_record import Decision, parse_stamp
from handoff_gate.gates.trust.ed25519 import verify
from handoff_gate.gates.trust.sshsig import SignatureError
from handoff_gate.gates.trust.statement import StatementError

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


def _stamp(value: object) -> datetime | None:
    try:
        return parse_stamp(value) if isinstance(value, str) else None
    except ValueError:
        return None


def signature_problem(
    decision: Decision, policy: Policy | None, at: datetime | None = None
) -> str | None:
    """Why the decision's signature does not verify, if it does not: under ``policy``,
    by a key listed for its principal at ``at`` (by default its ``decided_at``)."""
    if decision.signature is None or decision.log_head is None or decision.principal is None:
        return "a signed field is missing"
    try:
        statement = decision.statement(decision.principal, decision.log_head)
        if policy is None:
            verify(statement, decision.signature)
        else:
            when = parse_stamp(decision.decided_at) if at is None else at
            policy.signers.verify(statement, decision.signature, decision.principal, at=when)
    except (SignatureError, StatementError, ValueError) as exc:
        return str(exc)
    return None


def dating_problems(
    decision: Decision,
    policy: Policy,
    event: dict[str, Any] | None,
    head: dict[str, Any] | None,
) -> list[str]:
    """What is wrong with the times of a signed decision whose signature verifies
    (``event`` or ``head`` ``None`` when the log has none: reported elsewhere)."""
    decided = parse_stamp(decision.decided_at)
    problems: list[str] = []
    logged_at = event.get("at") if event is not None else None
    logged = _stamp(logged_at)
    if logged is not None:
        why = signature_problem(decision, policy, logged)
        if why is not None:
            problems.append(f"at its logged time {logged_at}: {why}")
    head_at = head.get("at") if head is not None else None
    signed_after = _stamp(head_at)
    if signed_after is not None and decided < signed_after:
        problems.append(
            f"dated {decision.decided_at}, before the log line it signed after ({head_at}): "
            "backdated"
        )
    if decided > policy.signers.clock():
        problems.append(f"dated {decision.decided_at}, after the verifier's clock: forward-dated")
    return problems
