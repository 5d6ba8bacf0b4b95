"""What the reviewer sees, pinned as SVG snapshots (fixed size, clock, names and file times).

Update after an intended change with ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input
from tui_helpers import PLAN, SIZE, decide_as, make_app, notices, placed, put, screen_text, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.batch_approve import BatchApproveScreen
from handoff_gate.tui.screens.full_value import FullValueScreen
from handoff_gate.tui.screens.help import HelpScreen
from handoff_gate.tui.screens.reject import CategoryList, RejectScreen
from handoff_gate.tui.screens.review import SINGLE_BELOW


def _pin_times(root: Path) -> None:
    """Give every handoff file a distinct, fixed modification time (the list sorts by it)."""
    files = sorted(root.glob("*/handoffs/*.json"))
    for n, path in enumerate(files):
        stamp = 1_768_469_400 + n * 60
        os.utime(path, (stamp, stamp))


async def type_reason(pilot: Pilot[Any], text: str) -> None:
    """Type into the dialog's reason box once it has focus (keys pressed before that would
    reach the list behind the dialog), and wait until every key has landed."""
    reason = pilot.app.screen.query_one(Input)
    await settle(pilot, lambda: reason.has_focus)
    reason.cursor_blink = False  # a blink is not a change
    await pilot.press(*text)
    await settle(pilot, lambda: reason.value == text)


def _snap(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    show: str = "open",
    run_before: Callable[[Pilot[Any]], Awaitable[None]] | None = None,
    size: tuple[int, int] = SIZE,
    read_only: bool = False,
) -> bool:
    _pin_times(root)
    app = make_app(root, registry, show=show, read_only=read_only)

    async def ready(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: placed(app))
        await settle(pilot, lambda: "inspecting" not in screen_text(app))
        if run_before is not None:
            await run_before(pilot)
        await pilot.pause()

    return snap_compare(app, terminal_size=size, run_before=ready)


def test_clean_approvable_handoff(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    assert _snap(snap_compare, root, registry)


def test_empty_defaulted_and_dropped_fields(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    note = {"title": "", "body": "Ship the weekly report", "tags": [], "reviewer_hint": "approve!"}
    put(root, "job-1", note, phase="note", schema="note/v1")
    assert _snap(snap_compare, root, registry)


def test_truncated_handoff(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    cut = b'{"problem_statement": "Estimate churn", "research_questions": ["What share of tri'
    put(root, "job-1", cut, finish_reason="length")
    assert _snap(snap_compare, root, registry)


def test_refusal(snap_compare: Callable[..., bool], root: Path, registry: Registry) -> None:
    said = b"I'm sorry, but I can't help with that. Could you clarify which cohort you mean?"
    put(root, "job-1", said, finish_reason="stop")
    assert _snap(snap_compare, root, registry)


def test_reject_dialog(snap_compare: Callable[..., bool], root: Path, registry: Registry) -> None:
    put(root, "job-1", PLAN)

    async def open_dialog(pilot: Pilot[Any]) -> None:
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(pilot.app.screen, RejectScreen))
        await type_reason(pilot, "no metric")

    assert _snap(snap_compare, root, registry, run_before=open_dialog)


def test_rejected_history_view(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    first = put(root, "job-1", PLAN)
    put(root, "job-1", {**PLAN, "risks": []})
    third = put(root, "job-2", PLAN)
    decide_as(
        root, "job-1", first, "reject", registry, reason="No baseline.", category="incomplete"
    )
    decide_as(
        root,
        "job-2",
        third,
        "reject",
        registry,
        reason="Out of this quarter.",
        category="out_of_scope",
    )
    assert _snap(snap_compare, root, registry, show="rejected")


#: The smallest terminal the app is made for, and a roomy one.
SIZES = pytest.mark.parametrize(
    "size",
    [(60, 24), (80, 24), (120, 40), (160, 45), (200, 50)],
    ids=["60x24", "80x24", "120x40", "160x45", "200x50"],
)
LONG_RUN = "live-pipeline-of-the-quarterly-churn-study"


def _review_root(root: Path) -> None:
    """Two runs with long names, a long text field, a warning and a blocked handoff."""
    statement = "Before fixing the failing test, explain why it fails. " * 6 + "END."
    put(root, LONG_RUN, {**PLAN, "problem_statement": statement})
    put(root, LONG_RUN, {**PLAN, "risks": []}, phase="design")
    cut = b'{"problem_statement": "Estimate churn", "research_questions": ["What sh'
    put(root, "wire-faults", cut, finish_reason="length")


async def _press_until(pilot: Pilot[Any], keys: list[str], screen_type: type[Screen[Any]]) -> None:
    await pilot.press(*keys)
    await settle(pilot, lambda: isinstance(pilot.app.screen, screen_type))


@SIZES
def test_list_and_detail(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    size: tuple[int, int],
) -> None:
    _review_root(root)
    assert _snap(snap_compare, root, registry, size=size)


@SIZES
def test_approve_dialog_at_size(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    size: tuple[int, int],
) -> None:
    _review_root(root)

    async def approve(pilot: Pilot[Any]) -> None:
        # One pane at a time below 70 columns: a opens the handoff, then asks.
        keys = ["end", "a", "a"] if size[0] < SINGLE_BELOW else ["end", "a"]
        await _press_until(pilot, keys, ApproveScreen)

    assert _snap(snap_compare, root, registry, run_before=approve, size=size)


@SIZES
def test_reject_dialog_at_size(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    size: tuple[int, int],
) -> None:
    _review_root(root)

    async def reject(pilot: Pilot[Any]) -> None:
        await _press_until(pilot, ["r"], RejectScreen)
        await type_reason(pilot, "cut")
        await pilot.press("tab", "down")
        await settle(pilot, lambda: isinstance(pilot.app.focused, CategoryList))

    assert _snap(snap_compare, root, registry, run_before=reject, size=size)


@SIZES
def test_full_value_view(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    size: tuple[int, int],
) -> None:
    _review_root(root)

    async def open_value(pilot: Pilot[Any]) -> None:
        await pilot.press("end")
        # One pane at a time below 70 columns: Enter opens the handoff, then its field.
        keys = ["enter", "enter"] if size[0] < SINGLE_BELOW else ["tab", "enter"]
        await _press_until(pilot, keys, FullValueScreen)

    assert _snap(snap_compare, root, registry, run_before=open_value, size=size)


@SIZES
def test_help(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    size: tuple[int, int],
) -> None:
    _review_root(root)

    async def open_help(pilot: Pilot[Any]) -> None:
        await _press_until(pilot, ["question_mark"], HelpScreen)

    assert _snap(snap_compare, root, registry, run_before=open_help, size=size)


def test_raw_view_at_80x24(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    _review_root(root)

    async def raw(pilot: Pilot[Any]) -> None:
        await pilot.press("v")
        await settle(pilot, lambda: "RAW" in screen_text(pilot.app))

    assert _snap(snap_compare, root, registry, run_before=raw, size=(80, 24))


def test_read_only_at_80x24(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    _review_root(root)
    assert _snap(snap_compare, root, registry, size=(80, 24), read_only=True)


LONG_REASON = (
    "Ships the customer's stored card number in constraints[1]; the executor must never "
    "see payment data. Send the projection of the billing record only, and say which "
    "fields the steps cite, so the next review can check them against the record."
)


def test_rejected_view_with_a_long_reason_at_80x24(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    """Looking back on 24 lines: who decided, when, the category and the start of the
    reason are on the first screen, above the header and the blocking finding."""
    card = {**PLAN, "constraints": ["Use the billing API", "card 4111 1111 1111 1111 on file"]}
    rejected = put(root, "planner-to-executor", card)
    decide_as(
        root,
        "planner-to-executor",
        rejected,
        "reject",
        registry,
        reason=LONG_REASON,
        category="unsafe",
    )
    put(root, "planner-to-executor", PLAN)
    assert _snap(snap_compare, root, registry, show="rejected", size=(80, 24), read_only=True)


def test_a_notification_over_the_detail_at_80x24(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    """A toast stays in the lower part of the screen: the detail's first lines show."""
    put(root, "job-1", PLAN)
    put(root, "job-2", {"problem_statement": "Estimate churn"})

    async def refused(pilot: Pilot[Any]) -> None:
        await pilot.press("up", "a")
        await settle(pilot, lambda: "Approval refused" in notices(pilot.app))

    assert _snap(snap_compare, root, registry, run_before=refused, size=(80, 24))


def test_batch_approve_confirmation_lists_every_marked_handoff(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    put(root, "fan-out", PLAN)
    put(root, "fan-out", {**PLAN, "risks": []})
    put(root, "fan-out", b'{"problem_statement": ')
    put(root, "wire-faults", PLAN, phase="design", schema="plan/v1")

    async def confirm(pilot: Pilot[Any]) -> None:
        await _press_until(pilot, ["asterisk", "A"], BatchApproveScreen)
        await settle(pilot, lambda: pilot.app.screen.query_one("#cancel").has_focus)

    assert _snap(snap_compare, root, registry, run_before=confirm)
