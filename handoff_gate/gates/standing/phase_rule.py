"""Which rule of a policy governs a handoff, for deciding it and for settling it.

A module of its own so that ``decide`` can find the rule without loading
``standing.quorum``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


class NoRule(ValueError):
    """The policy has no rule for the handoff's phase: nobody may decide it (exit 2)."""


def rule_of(policy: Policy, handoff_id: str) -> Rule:
    """The policy's rule for the handoff's phase; ``NoRule`` when none matches."""
    phase = handoff_id.split("-", 1)[1]
    rule = policy.rule_for(phase)
    if rule is None:
        raise NoRule(f"{policy.path}: no rule covers phase {phase!r}; nobody may decide it")
    return rule


def rule_or_none(policy: Policy | None, handoff_id: str) -> Rule | None:
    """The rule when there is a policy and it covers the phase, else ``None``."""
    if policy is None:
        return None
    try:
        return rule_of(policy, handoff_id)
    except NoRule:
        return None
