"""Whether a rule's decision record stands: the policy that holds the rule decides so.

A rule's record is unsigned, so it is never believed on its word: it counts only while
the policy in force is the one it names and judging the handoff's current bytes under it
picks that rule with that action (docs/security.md). A forged record thus gains nothing
the policy does not give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.rules.judge import rule_for, subject_of
from handoff_gate.gates.vocab.actions import Action

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.envelope import Envelope


def rule_problem(
    decision: Decision, policy: Policy | None, envelope: Envelope | None, sha256: str
) -> str | None:
    """Why ``decision`` (a rule's record) does not count for a handoff whose bytes hash
    to ``sha256`` and parse as ``envelope``; ``None`` when it stands."""
    named = decision.policy_sha256 or ""
    if policy is None:
        return f"rule {decision.rule!r} is checked only against its policy (give --policy)"
    if named != policy.digest:
        return (
            f"made under another policy (sha256 {named[:12]}…), "
            f"not the one in force ({policy.digest[:12]}…)"
        )
    rule = next((r for r in policy.auto if r.name == decision.rule), None)
    if rule is None:
        return f"the policy has no rule {decision.rule!r}"
    if decision.sha256 != sha256:
        return "made for other bytes than the handoff holds now"
    if envelope is None:
        return "the handoff cannot be read, so no rule can decide it"
    try:
        decides = rule_for(policy.auto, subject_of(envelope))
    except ValueError as exc:
        return f"no rule decides it: {exc}"
    if decides is None or decides.name != rule.name or decides.decide is not decision.action:
        how = "no rule" if decides is None else f"{decides.decide.value} by {decides.name!r}"
        return f"the policy's rules do not {decision.action.value} it by this rule ({how})"
    if decision.action is Action.APPROVE:
        phase_rule = policy.rule_for(envelope.phase)
        if phase_rule is None or not phase_rule.auto:
            return f"the policy's [[rule]] for {envelope.phase!r} does not say auto = true"
    return None
