"""A coding agent's call that a policy rule decides, answered without waiting on anyone.

The hook asks ``matching_rule`` first, on the event alone (the rules and the shell
grammar, nothing of the store or inspection), so a call no rule names costs the hook
nothing more. A call a rule names is stored as every call is (``submit_event``), the
rule's decision is made and recorded (``gates.decide.by_rule``: never over a record
already there, never an approval of what inspection blocks), and its result is read
back the way a wait's first look reads it (``gates.deliver.pickup``): settled by the
same rules that settle a person's decision, the approval delivered once. The hook's
waiting half (``integrations.coding_agent_hook``: the wait, withdrawal, giving up) never
loads. This is the full command's way; most calls an approve rule decides are answered
before it loads, by ``integrations.hook_fast`` (docs/performance.md), which writes the
same records and hands every call it cannot vouch for to this one. Whenever the rule does not
settle the call (inspection blocks it, a quorum still needs a person, someone decided
first), the hook goes on waiting on the stored call as for any other. ``said`` words
a result as the harness expects, here and for a person's decision
(``integrations.coding_agent_hook``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from handoff_gate.gates.rules.auto import TOOL_CALL_PHASE
from handoff_gate.gates.rules.judge import TOOL_CALL, Subject, rule_for

if TYPE_CHECKING:
    from handoff_gate.gates.deliver.pickup import WaitResult
    from handoff_gate.gates.rules.auto import AutoRule
    from handoff_gate.gates.setup import Setup
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.integrations.coding_agents import Answer, Harness, ToolEvent


def matching_rule(policy: Policy | None, harness: Harness, event: ToolEvent) -> AutoRule | None:
    """The rule that would decide ``event``'s call, judged on the event itself."""
    if policy is None or not policy.auto:
        return None
    subject = Subject(TOOL_CALL, TOOL_CALL_PHASE, event.tool, harness.name, event.args)
    return rule_for(policy.auto, subject)


def said(
    harness: Harness,
    event: ToolEvent,
    ref: HandoffRef,
    result: WaitResult,
    timeout: float,
    on_timeout: str = "deny",
) -> Answer:
    """A wait's result in ``harness``'s words: the approved arguments, or why not."""
    from handoff_gate.gates.deliver.pickup import WaitOutcome
    from handoff_gate.integrations.coding_agents import Approval

    if result.outcome is WaitOutcome.APPROVED and result.payload is not None:
        decision = result.decision
        reviewer = decision.reviewer if decision is not None else "a reviewer"
        return harness.allow(event, Approval(result.payload, result.edited, reviewer, ref.id))
    from handoff_gate.integrations.tool_calls import denial_reason  # words for a refusal

    why = f"handoff-gate {ref.id}: {denial_reason(result, timeout)}"
    if result.outcome in (WaitOutcome.TIMEOUT, WaitOutcome.CANCELLED):
        why = f"{why} It was withdrawn: a later approval runs nothing."
        if result.outcome is WaitOutcome.TIMEOUT and on_timeout == "ask":
            return harness.undecided(event, why)
        return harness.deny(event, f"The call to {event.tool} was not run: {why}")
    if result.outcome is WaitOutcome.REJECTED:
        decision = result.decision
        who = (
            f"The policy's rule {decision.rule!r}"
            if decision is not None and decision.rule is not None
            else "A reviewer"
        )
        return harness.deny(event, f"{who} rejected the call to {event.tool}. Reason: {why}")
    return harness.deny(event, f"The call to {event.tool} was not run: {why}")


def _quiet(line: str) -> None:
    """A refused record is the reviewer's business; the hook's stderr is the model's."""


def answer_by_rule(
    setup: Setup, run: str | os.PathLike[str], harness: Harness, event: ToolEvent
) -> tuple[HandoffRef, Answer | None]:
    """Store the call and let the rules decide it: (its ref, the answer), or (its ref,
    ``None``) when the rules did not settle it and a person must."""
    from handoff_gate.gates.decide.by_rule import decide_by_rule
    from handoff_gate.gates.deliver.pickup import Pickup
    from handoff_gate.integrations.coding_agent_submit import submit_event

    ref = submit_event(setup, run, harness, event)
    policy = setup.policy
    decision = decide_by_rule(
        setup.store, run, ref, registry=setup.contracts, policy=policy, on_warning=_quiet
    )
    if decision is None:
        return ref, None
    pickup = Pickup(setup, run, ref, timeout=0, on_refused=_quiet)
    result = pickup.settled()
    if result is None:
        return ref, None
    return ref, said(harness, event, ref, result, 0.0)
