"""Where the cursor goes: it starts where the work is, takes an arrival only when idle,
and ``n``/``p`` step between the handoffs this reviewer can decide now."""

from __future__ import annotations

import os
from pathlib import Path

from tui_helpers import (
    PLAN,
    SIZE,
    cursor_entry,
    decide_as,
    make_app,
    placed,
    put,
    screen_text,
    settle,
)

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp

BROKEN = {"problem_statement": "Estimate churn"}  # required fields missing: blocked


def _age(root: Path, run: str, handoff: str, seconds_ago: int) -> None:
    """Give a handoff file an older modification time (the list sorts newest first)."""
    path = root / run / "handoffs" / f"{handoff}.json"
    stamp = path.stat().st_mtime - seconds_ago
    os.utime(path, (stamp, stamp))


def _top(app: ReviewApp) -> str:
    return screen_text(app).splitlines()[0]


async def test_the_cursor_starts_on_the_oldest_decidable_handoff_below_blocked_ones(
    root: Path, registry: Registry
) -> None:
    oldest = put(root, "job-a", PLAN)
    newer = put(root, "job-b", PLAN)
    blocked = [put(root, "job-c", BROKEN) for _ in range(3)]
    _age(root, "job-a", oldest, 300)
    _age(root, "job-b", newer, 200)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        listed = [handoff for _, handoff in app.review.listed()]
        assert listed[:3] == sorted(blocked, reverse=True), "blocked rows are listed first"
        assert listed[3:] == [newer, oldest], "row order stays newest first"
        assert cursor_entry(app).key == (root / "job-a", oldest)
        await settle(pilot, lambda: "to decide 2 · blocked 3" in _top(app))


async def test_with_nothing_to_decide_the_cursor_starts_on_the_first_row(
    root: Path, registry: Registry
) -> None:
    put(root, "job-a", BROKEN)
    approved = put(root, "job-b", PLAN)
    decide_as(root, "job-b", approved, "approve", registry)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        assert cursor_entry(app).key == app.review.listed()[0]


async def test_an_arrival_takes_an_idle_cursor_but_not_a_busy_one(
    root: Path, registry: Registry
) -> None:
    waiting = put(root, "job-a", PLAN)
    blocked = put(root, "job-b", BROKEN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        assert cursor_entry(app).ref.id == waiting
        # Busy: on a handoff that can be decided, the cursor stays and the header counts.
        busy = put(root, "job-c", PLAN)
        await settle(pilot, lambda: "1 new" in _top(app))
        assert cursor_entry(app).key == (root / "job-a", waiting)
        # Idle: the reader moved to a blocked one; a decidable arrival takes the cursor.
        app.review.jump_to((root / "job-b", blocked))
        await pilot.pause()
        assert cursor_entry(app).ref.id == blocked
        arrived = put(root, "job-d", PLAN)
        await settle(pilot, lambda: cursor_entry(app).key == (root / "job-d", arrived))
        # Going to the one that arrived while busy clears the count.
        assert "1 new" in _top(app)
        app.review.jump_to((root / "job-c", busy))
        await settle(pilot, lambda: "new" not in _top(app))


async def test_an_undecidable_arrival_never_takes_the_cursor(
    root: Path, registry: Registry
) -> None:
    blocked = put(root, "job-a", BROKEN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        assert cursor_entry(app).ref.id == blocked
        later = put(root, "job-b", BROKEN)
        await settle(pilot, lambda: (root / "job-b", later) in app.review.listed())
        await settle(pilot, lambda: "blocked 2" in _top(app))
        assert cursor_entry(app).key == (root / "job-a", blocked)


async def test_n_and_p_skip_blocked_rows(root: Path, registry: Registry) -> None:
    first = put(root, "job-a", PLAN)
    put(root, "job-b", BROKEN)
    second = put(root, "job-c", PLAN)
    put(root, "job-d", BROKEN)
    for age, (run, handoff) in enumerate([("job-d", "0001-plan"), ("job-c", second)]):
        _age(root, run, handoff, 10 * (age + 1))
    _age(root, "job-b", "0001-plan", 30)
    _age(root, "job-a", first, 40)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        runs = [run.name for run, _ in app.review.listed()]
        assert runs == ["job-d", "job-c", "job-b", "job-a"], "blocked rows between the others"

        def current() -> str:
            return cursor_entry(app).key[0].name

        assert current() == "job-a"
        await pilot.press("n")
        assert current() == "job-c", "n wraps past the blocked job-d"
        await pilot.press("n")
        assert current() == "job-a", "and past the blocked job-b"
        await pilot.press("p")
        assert current() == "job-c"
        await pilot.press("up")
        assert current() == "job-d", "the arrow keys still reach a blocked row"
