"""The baselines: a bare watchfiles watcher and a bare watchfiles waiter, nothing else.

``python -m bench.bare watch DIR --expect N`` (``awatch``, as the TUI uses): prints
``{file name: perf_counter when seen}`` for files added to DIR (recursively), until N
were seen or a bound passes.
``python -m bench.bare wait DIR NAME``: blocks until DIR/NAME exists, reads it, and
prints the perf_counter of that moment. Both take the same ``--step``/``--debounce`` as
the code they are compared with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from watchfiles import Change, awatch, watch


async def watch_added(
    root: Path, expect: int, step: int, debounce: int, bound_s: float
) -> dict[str, float]:
    """Like the TUI's watcher: ``awatch`` on an asyncio loop, the same step and debounce."""
    seen: dict[str, float] = {}
    deadline = time.perf_counter() + bound_s
    async for changes in awatch(
        root, step=step, debounce=debounce, rust_timeout=100, yield_on_timeout=True
    ):
        now = time.perf_counter()
        for change, path in changes:
            name = Path(path).name
            if change is Change.added and name not in seen:
                seen[name] = now
        if len(seen) >= expect or now > deadline:
            break
    return seen


def wait_for(root: Path, name: str, step: int, debounce: int, bound_s: float) -> float:
    target = root / name
    deadline = time.perf_counter() + bound_s
    for _ in watch(
        root,
        step=step,
        debounce=debounce,
        rust_timeout=100,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        if target.exists():
            json.loads(target.read_bytes())
            return time.perf_counter()
        if time.perf_counter() > deadline:
            break
    raise TimeoutError(f"{name} did not appear within {bound_s} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("watch")
    w.add_argument("dir", type=Path)
    w.add_argument("--expect", type=int, required=True)
    q = sub.add_parser("wait")
    q.add_argument("dir", type=Path)
    q.add_argument("name")
    for p in (w, q):
        p.add_argument("--step", type=int, required=True)
        p.add_argument("--debounce", type=int, required=True)
        p.add_argument("--bound", type=float, default=60.0)
    args = parser.parse_args()
    if args.cmd == "watch":
        out: object = asyncio.run(
            watch_added(args.dir, args.expect, args.step, args.debounce, args.bound)
        )
    else:
        out = wait_for(args.dir, args.name, args.step, args.debounce, args.bound)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
