"""A coding agent's tool call through the gate: submit, wait, answer in the harness's words.

Arguments the tool's contract refuses are denied without asking anyone. When the wait
ends undecided the handoff is withdrawn, so an approval arriving after the harness
stopped listening can never run anything; nobody deciding is a deny unless the hook was
told to hand the call to Claude Code's own prompt (``on_timeout="ask"``), and a stop (a
signal) is always a deny.
"""

from __future__ import annotations

from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.findings import Verdict
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.integrations.coding_agent_deadline import Deadline
from handoff_gate.integrations.coding_agents import Answer, Harness, ToolEvent
from handoff_gate.integrations.giving_up import say_nothing, withdraw_undecided
from handoff_gate.integrations.hook_rules import said
from handoff_gate.integrations.tool_calls import blocked_reason

#: Why the hook withdrew the handoff, as the reviewer reads it.
HOOK_GAVE_UP = "the coding agent's hook stopped waiting"


def answer_submitted(
    gate: Gate,
    harness: Harness,
    event: ToolEvent,
    ref: HandoffRef,
    deadline: Deadline,
    on_timeout: str,
) -> Answer:
    """The answer for a call already stored as ``ref``: denied at once when its arguments
    are blocked, else once a reviewer decided or the wait the ``deadline`` leaves passed
    (the model is told it waited the hook's whole deadline). A wait that ends undecided
    withdraws the handoff first, unless a decision landed before the withdrawal could,
    which is then the result."""
    run = ref.run
    report = gate.inspect(run, ref)
    if report.verdict is Verdict.BLOCKED:
        return harness.deny(event, f"handoff-gate {ref.id}: {blocked_reason(report)}")
    timeout, stop = deadline.wait_seconds(), deadline.stop
    result = gate.wait(run, ref, timeout=timeout, stop_event=stop, on_refused=say_nothing)
    undecided = result.outcome in (WaitOutcome.TIMEOUT, WaitOutcome.CANCELLED)
    if undecided and not withdraw_undecided(gate, run, ref, HOOK_GAVE_UP):
        result = gate.wait(run, ref, timeout=0, on_refused=say_nothing)
    return said(harness, event, ref, result, deadline.seconds, on_timeout)
