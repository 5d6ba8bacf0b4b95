"""``wait`` for asyncio: the same waiter, stepped from a coroutine.

Concurrent calls share the store's wake-ups and hold no thread of their own, so
cancelling a task stops its wait at once. A module of its own so that ``wait`` never
loads asyncio.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Unpack

from handoff_gate.gates.deliver.pickup import WaitResult
from handoff_gate.gates.deliver.waiting import AsyncWaitOptions, Backoff, Waiter, pickup_of
from handoff_gate.gates.store.base import StoreUnavailable

if TYPE_CHECKING:
    from handoff_gate.gates.submit.context import GateContext
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef


async def wait_async(
    context: GateContext,
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    **options: Unpack[AsyncWaitOptions],
) -> WaitResult:
    """``wait`` for asyncio. The looks read the records on the event loop (a few small
    files, or one query); the wake-ups come from the store's own thread."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(woken.set)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            return

    pickup = pickup_of(context, run, ref_or_id, options)
    poll, on_block = options.get("poll", False), options.get("on_block")
    waiter = Waiter(pickup, force_polling=poll, wake=wake, on_block=on_block)
    backoff = Backoff(waiter)
    try:
        while True:
            try:
                step = waiter.step()
            except StoreUnavailable as exc:
                await asyncio.sleep(backoff.after(exc))
                continue
            if isinstance(step, WaitResult):
                return step
            backoff.reached()
            try:
                async with asyncio.timeout(step):
                    await woken.wait()
            except TimeoutError:
                pass
            woken.clear()
    finally:
        waiter.close()
