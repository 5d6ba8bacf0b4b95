"""The stats screen (``S``): the look back summed in the app, the rejected list one key
away, and a reason that tries markup or escapes shown as its characters."""

from __future__ import annotations

import re
from pathlib import Path

from tui_helpers import PLAN, all_inspected, decide_as, make_app, put, screen_text, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.model import Show
from handoff_gate.tui.screens.review import ReviewScreen
from handoff_gate.tui.screens.stats import StatsScreen

SMALL = (80, 24)
TALL = (100, 70)
HOSTILE = "[@click=app.quit]quit[/] \x1b[2J"


def _history(root: Path, registry: Registry) -> None:
    rejected = put(root, "job-1", PLAN)
    decide_as(root, "job-1", rejected, "reject", registry, reason=HOSTILE, category="unsafe")
    approved = put(root, "job-1", PLAN)
    decide_as(root, "job-1", approved, "approve", registry)
    put(root, "job-2", PLAN)


def _counted(app: object) -> bool:
    screen = getattr(app, "screen", None)
    return isinstance(screen, StatsScreen) and screen.stats is not None


async def test_s_shows_the_figures_and_r_goes_to_the_rejected_list(
    root: Path, registry: Registry
) -> None:
    _history(root, registry)
    app = make_app(root, registry)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        await pilot.press("S")
        await settle(pilot, lambda: _counted(app))
        await pilot.pause()
        shown = screen_text(app)
        assert "3 handoffs" in shown
        assert "1 pending, 1 approved, 1 rejected" in shown
        assert "alice (person)  1 approved, 1 rejected" in shown
        assert "[@click=app.quit]quit[/] ⟨ESC⟩[2j" in shown  # folded case, never run
        assert "2026-01-15 █" in shown  # the one day's bar
        await pilot.press("R")
        await settle(pilot, lambda: app.screen is review)
        assert review.show is Show.REJECTED
        assert app.is_running  # the reason's [@click=app.quit] did nothing


async def test_escape_leaves_the_view_as_it_was(root: Path, registry: Registry) -> None:
    _history(root, registry)
    app = make_app(root, registry)
    async with app.run_test(size=TALL) as pilot:  # tall enough for the whole help
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        before = review.show
        await pilot.press("S")
        await settle(pilot, lambda: _counted(app))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is review)
        assert review.show is before
        await pilot.press("question_mark")
        await pilot.pause()
        assert re.search(r"\bS\s+the look back", screen_text(app))
