"""``wait`` for asyncio: the same waiter, stepped from a coroutine.

Many concurrent calls share the store's wake-ups (one watcher thread per run folder, or
a listener per wait on a database) and hold no thread of their own, so cancelling a
task stops its wait at once. A module of its own
so that ``wait`` (and ``handoff-gate wait``) never load asyncio.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from handoff_gate.gates.deliver.pickup import Pickup, WaitResult, print_refusal
from handoff_gate.gates.deliver.waiting import Backoff, Waiter
from handoff_gate.gates.store.base import StoreUnavailable

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.gates.vocab.report import Report


async def wait_async(
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    store: RunStore,
    registry: Registry,
    timeout: float | None = None,
    poll: bool = False,
    on_block: Callable[[Report], None] | None = None,
    policy: Policy | None = None,
    on_refused: Callable[[str], None] = print_refusal,
    redeliver: bool = False,
) -> WaitResult:
    """``wait`` for asyncio: cancelling the task stops it at once.

    The checks between wake-ups read the decision records on the event loop (a few
    small files, or one query); the wake-ups come from the store's own thread. A
    database that goes away mid-wait is tried again until the deadline, as ``wait`` does.
    """
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(woken.set)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            return

    pickup = Pickup(
        run,
        ref_or_id,
        registry=registry,
        timeout=timeout,
        policy=policy,
        store=store,
        on_refused=on_refused,
        redeliver=redeliver,
    )
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
