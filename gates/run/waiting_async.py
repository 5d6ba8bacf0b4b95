"""``wait`` for asyncio: the same waiter, stepped from a coroutine.

On the filesystem, many concurrent calls share one watcher thread per run and hold no
thread of their own, so cancelling a task stops its wait at once. A module of its own
so that ``wait`` (and ``handoff-gate wait``) never load asyncio.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from handoff_gate.gates.run.pickup import Pickup, WaitResult, print_refusal
from handoff_gate.gates.run.waiting import Waiter

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.store.filesystem import HandoffRef
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.report import Report


async def wait_async(
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    on_block: Callable[[Report], None] | None = None,
    policy: Policy | None = None,
    store: RunStore | None = None,
    on_refused: Callable[[str], None] = print_refusal,
) -> WaitResult:
    """``wait`` for asyncio: cancelling the task stops it at once.

    On the filesystem, many concurrent calls share one watcher thread per run and hold
    no thread of their own; the checks between wake-ups read a few small files on the
    event loop. On a database store each sleep is a short ``LISTEN`` in a worker thread.
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
    )
    waiter = Waiter(pickup, force_polling=poll, wake=wake, on_block=on_block)
    try:
        while True:
            step = waiter.step()
            if isinstance(step, WaitResult):
                return step
            if not waiter.store.is_local:
                await asyncio.to_thread(waiter.block, step, threading.Event())
                continue
            try:
                async with asyncio.timeout(step):
                    await woken.wait()
            except TimeoutError:
                pass
            woken.clear()
    finally:
        waiter.close()
