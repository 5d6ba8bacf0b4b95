"""What an adapter does when its own wait ends without a decision: withdraw.

A pipeline that stops waiting will not consume its handoff, so a reviewer must not be
able to approve it later (issue 21). A decision that landed first stands: the withdrawal
is refused and a timed-out wait looks once more, so that decision is reported as usual.
A cancel is re-raised after the withdrawal, so cancelling still cancels.
"""

from __future__ import annotations

import asyncio
import os

from handoff_gate.gates.decide.withdrawal import WithdrawRefused
from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
from handoff_gate.gates.deliver.refusal import print_refusal
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.handoff_ref import HandoffRef

#: The withdrawal's reason, as the reviewer reads it.
TIMED_OUT = "the pipeline's wait timed out"
CANCELLED = "the pipeline's wait was cancelled"


def say_nothing(line: str) -> None:
    """A refused decision record is the reviewer's business (``list`` shows it), not the
    model's: an adapter's process (or a hook, whose stderr the model reads) says nothing
    on stderr for it."""


def withdraw_undecided(gate: Gate, run: str | os.PathLike[str], ref: HandoffRef, why: str) -> bool:
    """Withdraw ``ref`` unless something ended it first (a decision, a withdrawal):
    ``True`` when this call withdrew it."""
    try:
        gate.withdraw(run, ref, reason=why)
    except WithdrawRefused:
        return False
    return True


async def wait_or_withdraw(
    gate: Gate,
    run: str | os.PathLike[str],
    ref: HandoffRef,
    *,
    timeout: float | None,
    withdraw: bool,
    quiet: bool = False,
    redeliver: bool = False,
) -> WaitResult:
    """``gate.wait_async``, and on a timeout or a cancel (when ``withdraw``) the
    handoff withdrawn. The result is the wait's own: a timeout stays a timeout, unless a
    decision landed before the withdrawal could, which is then returned. ``redeliver``
    delivers a tool call's approval a wait delivered already (``Pickup``)."""
    refused = say_nothing if quiet else print_refusal
    try:
        result = await gate.wait_async(
            run, ref, timeout=timeout, on_refused=refused, redeliver=redeliver
        )
    except asyncio.CancelledError:
        if withdraw:
            withdraw_undecided(gate, run, ref, CANCELLED)
        raise
    if result.outcome is not WaitOutcome.TIMEOUT or not withdraw:
        return result
    if withdraw_undecided(gate, run, ref, TIMED_OUT):
        return result
    return await gate.wait_async(run, ref, timeout=0, on_refused=refused, redeliver=redeliver)
