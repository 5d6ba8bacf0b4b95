"""``wait`` for asyncio: the same waiter, stepped from a coroutine; and waiting on many
handoffs at once, each result as it settles (a pipeline that fanned out carries on with
each branch the moment its reviewer decides).

Concurrent calls share the store's wake-ups and hold no thread of their own, so
cancelling a task stops its wait at once, and a consumer of ``wait_many`` that leaves
early leaves no task. A module of its own so that ``wait`` never loads asyncio.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Unpack

from handoff_gate.gates.deliver.pickup import WaitResult
from handoff_gate.gates.deliver.waiting import AsyncWaitOptions, Backoff, Waiter, pickup_of
from handoff_gate.gates.store.base import StoreUnavailable
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of

if TYPE_CHECKING:
    from handoff_gate.gates.submit.context import GateContext


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


Settled = tuple[HandoffRef, WaitResult]


async def wait_many(
    context: GateContext,
    run: str | os.PathLike[str],
    refs: Iterable[HandoffRef | str],
    **options: Unpack[AsyncWaitOptions],
) -> AsyncGenerator[Settled, None]:
    """Yield ``(ref, result)`` for every handoff, in the order they settle (an id comes
    back as a ``HandoffRef`` of ``run``)."""
    where = os.fspath(run)
    wanted = [
        r if isinstance(r, HandoffRef) else HandoffRef.of(where, handoff_id_of(r)) for r in refs
    ]

    async def one(ref: HandoffRef) -> Settled:
        return ref, await wait_async(context, where, ref, **options)

    tasks = [asyncio.ensure_future(one(ref)) for ref in wanted]
    try:
        for settled in asyncio.as_completed(tasks):
            yield await settled
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def wait_any(
    context: GateContext,
    run: str | os.PathLike[str],
    refs: Iterable[HandoffRef | str],
    **options: Unpack[AsyncWaitOptions],
) -> Settled:
    """The first handoff to settle and its result; the other waits are cancelled
    (``ValueError`` for no refs)."""
    waits = wait_many(context, run, refs, **options)
    try:
        async for settled in waits:
            return settled
    finally:
        await waits.aclose()
    raise ValueError("wait_any needs at least one handoff to wait for")
