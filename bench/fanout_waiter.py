"""Fan-out child for the pickup benchmark: one ``wait_async`` per handoff of a run, one loop.

``python -m bench.fanout_waiter RUN_DIR ARMED_FILE DECIDED`` waits on every handoff of the
run at once, creates ``ARMED_FILE`` once all of them share the run's watcher, and after
``DECIDED`` of them have returned cancels the rest. It prints, per returned handoff, the
perf_counter at which its wait returned (CLOCK_MONOTONIC, comparable across processes),
and how many watcher threads served them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

from handoff_gate.gates.api import wait_async
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.filesystem import DECISIONS, list_handoffs


async def _main(run_dir: Path, armed: Path, decided: int) -> dict[str, object]:
    registry = load_registry()
    returned: dict[str, float] = {}
    outcomes: set[str] = set()
    enough = asyncio.Event()

    async def one(handoff: str) -> None:
        result = await wait_async(run_dir, handoff, registry=registry)
        returned[handoff] = time.perf_counter()
        outcomes.add(result.outcome.value)
        if len(returned) >= decided:
            enough.set()

    refs = list_handoffs(run_dir)
    tasks = [asyncio.create_task(one(ref.id)) for ref in refs]
    while fs_watch.subscriber_count(run_dir / DECISIONS) < len(refs):
        await asyncio.sleep(0.005)
    threads = len(fs_watch.watcher_threads())
    armed.touch()
    await enough.wait()
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return {"t": returned, "outcomes": sorted(outcomes), "watcher_threads": threads}


def main() -> None:
    run_dir, armed, decided = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(asyncio.run(_main(run_dir, armed, decided))))


if __name__ == "__main__":
    main()
