"""What an adapter tells a producer (a model, a graph) when its handoff was not approved.

Shared by the framework adapters so a reject reads the same everywhere: the reviewer's
reason first, then the findings inspection recorded, one per line. The text is meant
for a model's next prompt, not for a terminal: it is plain text, and a reason or a
finding message is passed on as written (it is the producer's own output quoted back).
"""

from __future__ import annotations

from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult

#: At most this many findings are quoted back, so a reject cannot flood a prompt.
MAX_FINDINGS = 20


class HandoffNotApproved(RuntimeError):
    """The wait ended without a decision a producer can act on (timeout, cancel, edited file)."""

    def __init__(self, result: WaitResult, handoff_id: str) -> None:
        self.result = result
        self.handoff_id = handoff_id
        super().__init__(f"handoff {handoff_id} was not approved: {result.outcome.value}")


def rejection_text(result: WaitResult) -> str:
    """The reviewer's reason and the recorded findings, as a retry prompt."""
    decision = result.decision
    reason = decision.reason if decision is not None and decision.reason else "no reason given"
    lines = [f"A reviewer rejected this output. Reason: {reason}"]
    if decision is not None and decision.category is not None:
        lines.append(f"Category: {decision.category.value}")
    findings = result.report.findings if result.report is not None else ()
    if findings:
        lines.append("Findings:")
        for finding in findings[:MAX_FINDINGS]:
            where = f" at {finding.path}" if finding.path else ""
            lines.append(f"- {finding.code.value}{where}: {finding.message}")
        if len(findings) > MAX_FINDINGS:
            lines.append(f"- ... and {len(findings) - MAX_FINDINGS} more")
    return "\n".join(lines)


def settled(result: WaitResult, handoff_id: str) -> bool:
    """True for approved, False for rejected; anything else raises ``HandoffNotApproved``."""
    if result.outcome is WaitOutcome.APPROVED:
        return True
    if result.outcome is WaitOutcome.REJECTED:
        return False
    raise HandoffNotApproved(result, handoff_id)
