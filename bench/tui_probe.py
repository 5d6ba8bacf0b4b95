"""The TUI side of the benchmarks: ``ReviewApp`` headless, with paint-time probes.

``visible ROOT --expect N``: once N new rows are in the list (or the bound passed), prints
``listed`` and ``painted``: file name -> perf_counter when its row first entered the
list's rows, and when it was first painted (rows scrolled out of view are never painted).
``detail RUN --reps R``: selects the run's first and last handoff in turn and prints,
per handoff, the ms from the cursor move to the last line of the field tree's first
screen being painted.

Probes wrap ``render_line`` (what the compositor calls to paint a line) and only record
the time, so the app does the same work as without them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from textual.strip import Strip

from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.tui.model import ReviewOptions, Show
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList

SIZE = (120, 40)


def probe_rows(painted: dict[str, float], listed: dict[str, float]) -> None:
    """Stamp each row's file name when it first enters the list and when first painted."""
    original = HandoffList.render_line
    original_set_rows = HandoffList.set_rows

    def set_rows(self: HandoffList, *args: Any, **kwargs: Any) -> None:
        original_set_rows(self, *args, **kwargs)
        now = time.perf_counter()
        for key in self.keys:
            if isinstance(key, tuple):
                listed.setdefault(f"{key[1]}.json", now)

    def render_line(self: HandoffList, y: int) -> Strip:
        strip = original(self, y)
        keys = self.keys
        index = y + self.scroll_offset.y
        if index < len(keys) and isinstance(key := keys[index], tuple):
            painted.setdefault(f"{key[1]}.json", time.perf_counter())
        return strip

    HandoffList.render_line = render_line  # type: ignore[method-assign]
    HandoffList.set_rows = set_rows  # type: ignore[method-assign]


async def visible(root: Path, expect: int, bound: float) -> dict[str, Any]:
    painted: dict[str, float] = {}
    listed: dict[str, float] = {}
    probe_rows(painted, listed)
    gate = Gate(setup=assemble(root, contracts=load_registry(), env={}))
    app = ReviewApp(gate, ReviewOptions(quiet=True))
    deadline = time.perf_counter() + bound
    existing = {p.name for p in root.rglob("*.json")}  # the writer starts after we watch
    async with app.run_test(headless=True, size=SIZE):
        while time.perf_counter() < deadline and len(listed.keys() - existing) < expect:
            await asyncio.sleep(0.01)
        # Rows listed above the fold get painted on the next refresh: give it that long.
        settle = time.perf_counter() + 0.5
        while time.perf_counter() < settle and len(painted.keys() - existing) < expect:
            await asyncio.sleep(0.01)
    return {"painted": painted, "listed": listed}


class _ScreenProbe:
    """Records when each line of the field tree's first screen was painted for a report."""

    def __init__(self) -> None:
        self.report: Any = None
        self.lines: dict[int, float] = {}
        original = FieldTree.render_line
        probe = self

        def render_line(tree: FieldTree, y: int) -> Strip:
            strip = original(tree, y)
            if tree.report is not None and tree.report is probe.report:
                probe.lines.setdefault(y, time.perf_counter())
            return strip

        FieldTree.render_line = render_line  # type: ignore[method-assign,assignment]

    def done(self, tree: FieldTree) -> float | None:
        height = min(tree.scrollable_content_region.height, tree.virtual_size.height)
        if height <= 0 or any(y not in self.lines for y in range(height)):
            return None
        return max(self.lines[y] for y in range(height))


async def detail(run_dir: Path, reps: int, bound: float = 120.0) -> dict[str, list[float]]:
    probe = _ScreenProbe()
    gate = Gate(setup=assemble(run_dir, contracts=load_registry("bench.contracts"), env={}))
    app = ReviewApp(gate, ReviewOptions(show=Show.ALL, quiet=True))
    deadline = time.perf_counter() + bound
    out: dict[str, list[float]] = {"small": [], "big": []}
    async with app.run_test(headless=True, size=SIZE):
        while time.perf_counter() < deadline:
            entries = list(app.review.entries.values())
            if len(entries) >= 2 and all(e.report is not None for e in entries):
                break
            await asyncio.sleep(0.02)
        keys = sorted(app.review.entries, key=lambda k: k[1])
        small, big = app.review.entries[keys[0]], app.review.entries[keys[-1]]
        tree = app.query_one(FieldTree)
        shown = time.perf_counter() + 2.0  # the first selection's tree, if there is one
        while tree.report is None and time.perf_counter() < shown:
            await asyncio.sleep(0.01)
        # Every timed jump must change what the tree shows: a jump to the handoff already
        # on screen paints nothing, and its wait would run to the deadline.
        pair = [("small", small), ("big", big)]
        if tree.report is not None and tree.report is small.report:
            pair.reverse()
        for _ in range(reps + 1):
            for label, entry in pair:
                probe.report, probe.lines = entry.report, {}
                started = time.perf_counter()
                app.review.jump_to(entry.key)
                finished = None
                while finished is None and time.perf_counter() < deadline:
                    await asyncio.sleep(0.001)
                    finished = probe.done(tree)
                if finished is None:
                    raise TimeoutError(f"field tree of {entry.ref.id} never painted")
                out[label].append((finished - started) * 1000)
    return {label: times[1:] for label, times in out.items()}  # the first pair warms up


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("visible")
    v.add_argument("root", type=Path)
    v.add_argument("--expect", type=int, required=True)
    v.add_argument("--bound", type=float, default=60.0)
    d = sub.add_parser("detail")
    d.add_argument("run_dir", type=Path)
    d.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    if args.cmd == "visible":
        result: object = asyncio.run(visible(args.root, args.expect, args.bound))
    else:
        result = asyncio.run(detail(args.run_dir, args.reps))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
