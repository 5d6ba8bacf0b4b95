"""The reviewer's day at 80x24: ids always shown, read-only review, the header's count,
where the cursor goes after a decision, and palette actions."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from tui_helpers import (
    PLAN,
    all_inspected,
    cursor_entry,
    decide_as,
    make_app,
    notices,
    put,
    review_app,
    screen_text,
    settle,
)

from handoff_gate.gates.api import read_decision
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.model import Key
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.reject import RejectScreen
from handoff_gate.tui.widgets.field_tree import FieldTree

SMALL = (80, 24)
CUT = b'{"problem_statement": "Estimate churn", "research_questions": ["What share'


def _tree(root: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    )


async def test_ids_stay_whole_when_run_names_are_long_at_80x24(
    root: Path, registry: Registry
) -> None:
    long_run = "a-run-name-much-longer-than-the-list-can-hold"
    first = put(root, long_run, PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.pause()
        row = screen_text(app).splitlines()[1]
        assert first in row
        assert "a-run-n" in row and "…" in row and long_run not in row


async def test_read_only_refuses_decisions_and_writes_nothing(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    before = _tree(root)
    app = review_app(root, registry, reviewer="alice", quiet=True, read_only=True)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        assert "read-only" in screen_text(app).splitlines()[0]
        await pilot.press("a")
        await settle(pilot, lambda: "Read-only review" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)
        await pilot.press("r")
        assert not isinstance(app.screen, RejectScreen)
    assert read_decision(root / "job-1", handoff) is None
    assert _tree(root) == before


async def test_the_header_counts_only_what_a_person_can_decide(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    put(root, "job-2", CUT, finish_reason="length")
    decided = put(root, "job-3", PLAN)
    decide_as(root, "job-3", decided, "approve", registry)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        # The header repaints at most every LIST_REFRESH_S during inspection: wait for it.
        await settle(pilot, lambda: "to decide 1 · blocked 1 " in screen_text(app).splitlines()[0])
        await pilot.pause(0.2)
        assert "to decide 1 · blocked 1 " in screen_text(app).splitlines()[0]


async def test_after_a_decision_the_cursor_goes_to_the_same_run_then_the_next(
    root: Path, registry: Registry
) -> None:
    first = put(root, "job-a", PLAN)
    second = put(root, "job-a", PLAN, phase="design")
    other = put(root, "job-b", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        app.review.jump_to((root / "job-a", first))

        async def approve_then_find_the_cursor_on(expected: Key) -> None:
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
            await pilot.press("y")
            await settle(pilot, lambda: cursor_entry(app).key == expected)
            await pilot.pause(0.2)
            assert cursor_entry(app).key == expected

        await approve_then_find_the_cursor_on((root / "job-a", second))
        await approve_then_find_the_cursor_on((root / "job-b", other))


async def test_the_palette_offers_actions_by_name(root: Path, registry: Registry) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("ctrl+p", *"reject")
        await settle(pilot, lambda: "Reject" in screen_text(app))
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, RejectScreen))


async def test_the_rejected_view_lists_reviewer_category_and_reason(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    decide_as(root, "job-1", handoff, "reject", registry, reason="No base", category="wrong")
    app = make_app(root, registry, show="rejected")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.pause()
        row = screen_text(app).splitlines()[1]
        for column in (handoff, "alice", "wrong", "No base"):
            assert column in row


async def test_the_runs_next_step_arriving_just_after_a_decision_takes_the_cursor(
    root: Path, registry: Registry
) -> None:
    plan = put(root, "job-a", PLAN)
    put(root, "job-b", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        app.review.jump_to((root / "job-a", plan))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        await pilot.press("y")
        await settle(pilot, lambda: cursor_entry(app).run == "job-b")
        design = put(root, "job-a", PLAN, phase="design")
        await settle(pilot, lambda: cursor_entry(app).key == (root / "job-a", design))


async def test_a_new_arrival_never_moves_the_cursor_on_its_own(
    root: Path, registry: Registry
) -> None:
    put(root, "job-a", PLAN)
    put(root, "job-b", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("down")
        chosen = cursor_entry(app).key
        late = put(root, "job-c", PLAN)
        await settle(pilot, lambda: (root / "job-c", late) in app.review.listed())
        await settle(pilot, lambda: all_inspected(app))
        await pilot.pause(0.2)
        assert cursor_entry(app).key == chosen


async def test_a_resize_refits_the_rows_and_rewraps_the_fields(
    root: Path, registry: Registry
) -> None:
    long_run = "a-run-name-much-longer-than-the-list-can-hold"
    first = put(root, long_run, {**PLAN, "problem_statement": "word " * 80 + "TAIL"})
    app = make_app(root, registry)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.pause()
        assert long_run[:21] in screen_text(app).splitlines()[1]  # the row, cut with a marker
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        lines = screen_text(app).splitlines()
        assert first in lines[1] and "…" in lines[1]
        fields = app.query_one(FieldTree)
        shown, width = fields.shown_text(), fields.scrollable_content_region.width
        assert any("TAIL" in line for line in shown) and sum("word" in s for s in shown) > 5
        assert all(cell_len(line) <= width for line in shown), "wrapped to the pane, none cut"
