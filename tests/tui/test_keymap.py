"""Every key has a binding id, so Textual's keymap can move it, and the walkthrough names it."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding, BindingType
from tui_helpers import PLAN, SIZE, make_app, notices, placed, put, screen_text, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.approve_edit import ApproveEditScreen
from handoff_gate.tui.screens.batch_approve import BatchApproveScreen
from handoff_gate.tui.screens.edit_text import EditTextScreen
from handoff_gate.tui.screens.full_value import FullValueScreen
from handoff_gate.tui.screens.help import HelpScreen
from handoff_gate.tui.screens.reject import RejectScreen
from handoff_gate.tui.screens.review import ReviewScreen
from handoff_gate.tui.screens.rule_proposal import RuleProposalScreen
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList

WALKTHROUGH = Path(__file__).parents[2] / "docs" / "walkthrough.md"
BOUND: list[list[BindingType]] = [
    ReviewScreen.BINDINGS,
    ReviewApp.BINDINGS,
    HandoffList.BINDINGS,
    FieldTree.BINDINGS,
    ApproveScreen.BINDINGS,
    ApproveEditScreen.BINDINGS,
    EditTextScreen.BINDINGS,
    BatchApproveScreen.BINDINGS,
    RejectScreen.BINDINGS,
    FullValueScreen.BINDINGS,
    HelpScreen.BINDINGS,
    RuleProposalScreen.BINDINGS,
]


def _bindings() -> list[Binding]:
    return [b for bindings in BOUND for b in bindings if isinstance(b, Binding)]


def test_every_binding_has_an_id_and_the_walkthrough_lists_it() -> None:
    bindings = _bindings()
    assert [b.key for b in bindings if b.id is None] == []
    assert {b.id for b in bindings} - _documented_ids() == set()


def _documented_ids() -> set[str]:
    """The ids in the second column of the walkthrough's key table."""
    rows = [line.split("|") for line in WALKTHROUGH.read_text().splitlines()]
    return {name for row in rows if len(row) == 5 for name in re.findall(r"`([a-z-]+)`", row[2])}


async def test_a_remapped_approve_key_opens_the_dialog(root: Path, registry: Registry) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    app.set_keymap({"approve": "x"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, ApproveScreen)
        await pilot.press("x")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))


async def test_a_read_only_review_says_why_on_the_remapped_key(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry, read_only=True)
    app.set_keymap({"approve": "x"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        await pilot.press("x")
        await settle(pilot, lambda: "Read-only review" in notices(app))


async def test_help_names_the_remapped_key(root: Path, registry: Registry) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    app.set_keymap({"approve": "x"})
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot, lambda: placed(app))
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        lines = screen_text(app).splitlines()
        approve = next(line for line in lines if "approve the selected handoff" in line)
        assert re.search(r"\bx\b", approve) and not re.search(r"\ba\b", approve)
