"""What the first screen holds at 80x24, and one pane at a time on a phone.

Read from what the compositor paints (``painted``), so a pane cut off, hidden or
overlapped fails the assertions as a reader would notice it.
"""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget
from tui_helpers import PLAN, decide_as, make_app, painted, placed, put, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.decision import DecisionScreen
from handoff_gate.tui.screens.help import HelpScreen
from handoff_gate.tui.widgets.detail import Detail
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList

CARD = {**PLAN, "constraints": ["Use the billing API", "card 4111 1111 1111 1111 on file"]}
REASON = (
    "Ships the billing record with a stored card and the reasoning trace; send the "
    "projection only, and ask the planner to restate the constraints without the card "
    "number, which must never leave the billing service in any handoff. " * 3
).strip()


def _first(app: ReviewApp, widget: Widget, needle: str) -> int:
    """The row (from the widget's top) of the first painted line holding ``needle``."""
    lines = painted(app, widget)
    return next(n for n, line in enumerate(lines) if needle in line)


def _boxes_whole(lines: list[str]) -> bool:
    """Every box drawn has both its top and its bottom edge on screen."""
    return sum(line.count("╭") for line in lines) == sum(line.count("╰") for line in lines)


async def test_80x24_then_a_phone_one_pane_at_a_time(root: Path, registry: Registry) -> None:
    rejected = put(root, "planner-to-executor", CARD)
    decide_as(
        root, "planner-to-executor", rejected, "reject", registry, reason=REASON, category="unsafe"
    )
    app = make_app(root, registry, show="rejected", read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: placed(app))
        detail = app.screen.query_one(Detail)
        fields = app.screen.query_one(FieldTree)
        await settle(pilot, lambda: fields.report is not None and fields.first_row is not None)
        await pilot.pause()
        # 80x24: the decision in two lines, then the verdict and its findings, then fields.
        lines = painted(app, detail)
        assert "REJECTED" in lines[0] and "alice" in lines[0], lines[:3]
        assert "i: in full" in lines[1]
        assert REASON not in "".join(lines), "the whole reason is a key away, not here"
        verdict = _first(app, detail, "BLOCKED")
        assert verdict <= 3
        assert "secret" in lines[verdict + 1], "the blocking finding follows the verdict"
        assert "problem_statement" in "".join(painted(app, fields)), "a field on screen too"
        assert _boxes_whole(lines)
        assert " to decide " not in "".join(painted(app, app.screen.query_one("#topbar")))

        # The whole decision is one key away.
        await pilot.press("i")
        await settle(pilot, lambda: isinstance(app.screen, DecisionScreen))
        shown = " ".join(" ".join(painted(app, app.screen)).split())
        assert " ".join(REASON.split()) in shown
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, DecisionScreen))

        # A phone: the list alone, full width; Enter opens the handoff in its place.
        await pilot.resize_terminal(48, 40)
        await pilot.pause()
        handoffs = app.screen.query_one(HandoffList)
        handoffs.focus()
        await pilot.pause()
        assert handoffs.region.width == 48 and detail.region.width == 0
        await pilot.press("enter")
        await settle(pilot, lambda: detail.region.width > 0)
        assert handoffs.region.width == 0 and detail.region.width == 48
        assert fields.has_focus
        lines = painted(app, detail)
        assert "REJECTED" in lines[0]
        verdict = _first(app, detail, "BLOCKED")
        assert verdict <= 3 and "secret" in "".join(lines[verdict : verdict + 3])
        assert _boxes_whole(lines)
        await pilot.press("escape")
        await settle(pilot, lambda: handoffs.region.width == 48)
        assert detail.region.width == 0 and handoffs.has_focus

        # Wide again: both panes, whatever was open.
        await pilot.resize_terminal(120, 35)
        await pilot.pause()
        assert handoffs.region.width > 0 and detail.region.width > 0


async def test_on_a_phone_a_opens_the_handoff_before_asking(root: Path, registry: Registry) -> None:
    """One pane at a time, ``a`` on the list shows the handoff first: nothing is
    approved from a row the reviewer has not read."""
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=(48, 40)) as pilot:
        await settle(pilot, lambda: placed(app))
        detail = app.screen.query_one(Detail)
        assert detail.region.width == 0
        await pilot.press("a")
        await settle(pilot, lambda: detail.region.width == 48)
        assert not isinstance(app.screen, ApproveScreen)
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))


async def test_help_has_a_heading_per_pane_and_each_key_once(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=(100, 70)) as pilot:
        await settle(pilot, lambda: placed(app))
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        lines = [line.strip(" █▀▄").split("█")[0].strip() for line in painted(app, app.screen)]
        headings = ["Anywhere", "On the list", "On the fields"]
        assert [line for line in lines if line in headings] == headings, lines
        r_rows = [line for line in lines if line.startswith("R ")]
        assert len(r_rows) == 1 and "reject" in r_rows[0], "R once, with both its meanings"
        for line in lines:
            keys = line.split("  ")[0].split()
            assert len(keys) == len(set(keys)), f"a key named twice: {line!r}"
