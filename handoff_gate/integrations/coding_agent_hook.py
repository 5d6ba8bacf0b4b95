"""A coding agent's tool call through the gate: submit, wait, answer in the harness's words.

Arguments the tool's contract refuses are denied without asking anyone. When the wait
ends undecided the handoff is withdrawn, so an approval arriving after the harness
stopped listening can never run anything; nobody deciding is a deny unless the hook was
told to hand the call to Claude Code's own prompt (``on_timeout="ask"``), and a stop (a
signal) is always a deny.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.findings import Verdict
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.integrations.coding_agents import Answer, Harness, ToolEvent
from handoff_gate.integrations.giving_up import withdraw_undecided
from handoff_gate.integrations.hook_rules import said
from handoff_gate.integrations.tool_calls import blocked_reason

#: Why the hook withdrew the handoff, as the reviewer reads it.
HOOK_GAVE_UP = "the coding agent's hook stopped waiting"


def _quiet(line: str) -> None:
    """A refused record is the reviewer's business; the hook's stderr is the model's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HookWait:
    """How the hook waits: ``timeout`` seconds for a decision, ``stop`` set by a signal,
    what nobody deciding means (``on_timeout``: ``"deny"``, or ``"ask"`` Claude Code's
    own prompt), and the seconds the model is told it waited (``told``: the hook's whole
    deadline; ``None``: ``timeout``)."""

    timeout: float
    stop: threading.Event | None = None
    on_timeout: str = "deny"
    told: float | None = None


def answer_submitted(
    gate: Gate, harness: Harness, event: ToolEvent, ref: HandoffRef, wait: HookWait
) -> Answer:
    """The answer for a call already stored as ``ref`` (in its run): denied at once when
    its arguments are blocked, else once a reviewer decided or the wait ended."""
    run = ref.run
    report = gate.inspect(run, ref)
    if report.verdict is Verdict.BLOCKED:
        return harness.deny(event, f"handoff-gate {ref.id}: {blocked_reason(report)}")
    result = decided(gate, run, ref, wait.timeout, wait.stop)
    timeout = wait.told if wait.told is not None else wait.timeout
    return said(harness, event, ref, result, timeout, wait.on_timeout)


def decided(
    gate: Gate, run: str, ref: HandoffRef, timeout: float, stop: threading.Event | None
) -> WaitResult:
    """The wait's result; one that ends undecided withdraws the handoff first, unless a
    decision landed before the withdrawal could, which is then the result."""
    result = gate.wait(run, ref, timeout=timeout, stop_event=stop, on_refused=_quiet)
    if result.outcome not in (WaitOutcome.TIMEOUT, WaitOutcome.CANCELLED):
        return result
    if withdraw_undecided(gate, run, ref, HOOK_GAVE_UP):
        return result
    return gate.wait(run, ref, timeout=0, on_refused=_quiet)
