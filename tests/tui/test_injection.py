"""Payload text is shown literally: markup does nothing, escapes never reach the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_helpers import (
    SIZE,
    all_inspected,
    make_app,
    notices,
    placed,
    put,
    screen_text,
    settle,
)

from handoff_gate.gates.api import read_decision
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.full_value import FullValueScreen
from handoff_gate.tui.widgets.field_tree import FieldTree

CLICK = "[@click=app.quit]x[/]"
BOLD = "[bold]APPROVED[/]"
UNBALANCED = "half [open"
APPROVE_LINK = "[@click=app.approve]go[/]"
RUN_NAME = "[@click=app.quit]r[b]"  # a directory name cannot hold "/"


async def _click_every_line(pilot: Pilot[Any], app: ReviewApp) -> None:
    """Click each field line twice; a click that opens a field's full value (payload shown
    there, as literally) is closed again with Escape."""
    tree = app.query_one(FieldTree)
    for line in range(len(tree.shown_text())):
        for x in (12, 40):
            await pilot.click(FieldTree, offset=(x, line))
            if isinstance(app.screen, FullValueScreen):
                await pilot.press("escape")
                await settle(pilot, lambda: not isinstance(app.screen, FullValueScreen))


async def test_markup_in_values_is_shown_literally_and_clicking_it_does_nothing(
    root: Path, registry: Registry
) -> None:
    handoff = put(
        root,
        "job-1",
        {"title": CLICK, "body": f"{BOLD} {UNBALANCED}", "tags": [APPROVE_LINK]},
        schema="note/v1",
        phase="note",
    )
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("tab", "down", "down", "enter")
        await settle(pilot, lambda: APPROVE_LINK in screen_text(app))
        shown = screen_text(app)
        for literal in (CLICK, BOLD, UNBALANCED, APPROVE_LINK):
            assert literal in shown
        await _click_every_line(pilot, app)
        assert app.is_running and app.return_value is None
        assert not isinstance(app.screen, ApproveScreen)
        after = screen_text(app)
        for literal in (CLICK, BOLD, UNBALANCED, APPROVE_LINK):
            assert literal in after
    assert read_decision(root / "job-1", handoff) is None


async def test_markup_in_a_validation_message_is_shown_literally(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", {"label": "trap!"}, schema="trap/v1", phase="trap")
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        shown = screen_text(app)
        assert "[@click=app.quit]bad[/] label [bold]x[/]" in shown
        await _click_every_line(pilot, app)
        assert app.is_running and app.return_value is None


async def test_markup_in_a_run_name_stays_literal_in_rows_and_notifications(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", {"title": "ok"}, schema="note/v1", phase="note")
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        put(root, RUN_NAME, {"title": "ok"}, schema="note/v1", phase="note")
        await settle(pilot, lambda: len(app.review.entries) == 2 and all_inspected(app))
        await settle(pilot, lambda: RUN_NAME in notices(app))
        await settle(pilot, lambda: RUN_NAME in screen_text(app))
        await pilot.click("#list", offset=(14, 0))
        await pilot.click("#list", offset=(14, 1))
        assert app.is_running and app.return_value is None


async def test_escape_and_bidi_characters_never_reach_the_terminal(
    root: Path, registry: Registry
) -> None:
    put(
        root,
        "job-1",
        {"title": "red\x1b[31m!\x07", "body": "abc\u202edef\u200b"},
        schema="note/v1",
        phase="note",
    )
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        shown = screen_text(app)
        assert "red⟨ESC⟩[31m!⟨BEL⟩" in shown
        assert "abc⟨U+202E⟩def⟨U+200B⟩" in shown
        assert "UNSAFE TEXT" in shown
        for char in ("\x1b", "\x07", "\u202e", "\u200b"):
            assert char not in shown


async def test_secrets_are_masked_in_fields_raw_view_and_diff(
    root: Path, registry: Registry
) -> None:
    card = "4111 1111 1111 1111"
    put(root, "job-1", {"title": "first"}, schema="note/v1", phase="note")
    put(
        root,
        "job-1",
        {"title": "pay", "body": f"card {card} on file"},
        schema="note/v1",
        phase="note",
    )
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        app.review.jump_to((root / "job-1", "0002-note"))
        await settle(pilot, lambda: "SECRET" in screen_text(app))
        assert card not in screen_text(app)
        await pilot.press("v")
        await settle(pilot, lambda: "RAW" in screen_text(app))
        assert "4111…1111" in screen_text(app) and card not in screen_text(app)
        await pilot.press("d")
        await settle(pilot, lambda: "DIFF" in screen_text(app))
        assert "4111…1111" in screen_text(app) and card not in screen_text(app)
