"""The starting row is the same after every start, whatever order results arrive in: the
oldest handoff the reviewer can decide, else the first row of the settled list.

Each start builds the same handoffs, created in one of the orders, and inspects them with
a contract that takes a random few milliseconds per handoff, so listings and inspection
batches reach the app in a different order every time. Every creation order is started
once for each list (rejected and open): twelve starts that leave no order untried, where
thirty random draws used to miss one in most runs.
"""

from __future__ import annotations

import os
import random
import time
from itertools import permutations
from pathlib import Path

from pydantic import BaseModel, field_validator
from tui_helpers import PLAN, SIZE, all_inspected, decide_as, make_app, put, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.model import Key
from handoff_gate.tui.widgets.handoff_list import HandoffList

#: Seeded, so a failing order can be replayed: the start number and the run order are in
#: the assertion's message, and the same seed gives the same delays again.
RNG = random.Random(20261203)


class Slow(BaseModel):
    """A user contract whose validation takes 0-80 ms (inspection batches are cut at 100 ms)."""

    title: str

    @field_validator("title")
    @classmethod
    def _dawdle(cls, value: str) -> str:
        time.sleep(RNG.uniform(0, 0.08))
        return value


def _build(root: Path, registry: Registry, order: list[str]) -> None:
    """Three runs, each with a rejected and an undecided handoff; file times fixed by run."""
    stamps = {"job-a": 1_768_469_400, "job-b": 1_768_469_460, "job-c": 1_768_469_520}
    for run in order:
        rejected = put(root, run, {"title": run}, phase="note", schema="slow/v1")
        put(root, run, PLAN)
        decide_as(root, run, rejected, "reject", registry, reason="no", category="other")
        for n, path in enumerate(sorted((root / run / "handoffs").glob("*.json"))):
            os.utime(path, (stamps[run] + n, stamps[run] + n))


async def _first_selection(root: Path, registry: Registry, show: str) -> tuple[Key, list[Key]]:
    app = make_app(root, registry, show=show)
    async with app.run_test(size=SIZE) as pilot:
        handoffs = app.query_one(HandoffList)
        await settle(pilot, lambda: all_inspected(app) and not handoffs.follow_top)
        await pilot.pause()
        listed = app.review.listed()
        current = app.review.current_entry()
        assert current is not None
        return current.key, listed


async def test_the_same_row_is_selected_after_every_start(
    tmp_path: Path, registry: Registry
) -> None:
    registry = {**registry, "slow/v1": Slow}
    runs = ["job-a", "job-b", "job-c"]
    seen: dict[str, set[tuple[Path, str]]] = {"rejected": set(), "open": set()}
    starts = [(list(order), show) for order in permutations(runs) for show in seen]
    for start, (order, show) in enumerate(starts):
        root = tmp_path / f"start-{start}" / "runs"
        root.mkdir(parents=True)
        _build(root, registry, order)
        key, listed = await _first_selection(root, registry, show)
        expected = listed[0] if show == "rejected" else listed[-1]
        assert key == expected, f"start {start} ({order}) selected {key[1]} of {key[0].name}"
        seen[show].add((Path(key[0].name), key[1]))
    # Rejected: nothing to decide, so the first row; open: the oldest plan, which the
    # list shows last (newest first).
    assert seen["rejected"] == {(Path("job-c"), "0001-note")}
    assert seen["open"] == {(Path("job-a"), "0002-plan")}
