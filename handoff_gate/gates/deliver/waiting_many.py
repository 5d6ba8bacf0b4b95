"""Waiting on many handoffs at once: each result as it settles, or only the first.

A pipeline that fanned out should carry on with each branch the moment its reviewer
decides. Every handoff gets its own ``wait_async``; this module only orders their ends,
and cancels the waits no longer wanted, so a consumer that leaves early leaves no task.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Unpack

from handoff_gate.gates.deliver.pickup import WaitResult
from handoff_gate.gates.deliver.waiting import AsyncWaitOptions
from handoff_gate.gates.deliver.waiting_async import wait_async
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of

if TYPE_CHECKING:
    from handoff_gate.gates.submit.context import GateContext

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
