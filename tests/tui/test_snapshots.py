"""What the reviewer sees, pinned as SVG snapshots (fixed size, clock, names and file times).

Update after an intended change with ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

import os

from textual.widgets import Input
from tui_helpers import PLAN, SIZE, all_inspected, decide_as, make_app, put, screen_text, settle

from handoff_gate.tui.screens.reject import RejectScreen


def _pin_times(root) -> None:
    """Give every handoff file a distinct, fixed modification time (the list sorts by it)."""
    files = sorted(root.glob("*/handoffs/*.json"))
    for n, path in enumerate(files):
        stamp = 1_768_469_400 + n * 60
        os.utime(path, (stamp, stamp))


def _snap(snap_compare, root, registry, show="pending", run_before=None) -> bool:
    _pin_times(root)
    app = make_app(root, registry, show=show)

    async def ready(pilot) -> None:
        await settle(pilot, lambda: all_inspected(app))
        await settle(pilot, lambda: "inspecting" not in screen_text(app))
        if run_before is not None:
            await run_before(pilot)
        await pilot.pause()

    return snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_clean_approvable_handoff(snap_compare, root, registry):
    put(root, "job-1", PLAN)
    assert _snap(snap_compare, root, registry)


def test_empty_defaulted_and_dropped_fields(snap_compare, root, registry):
    note = {"title": "", "body": "Ship the weekly report", "tags": [], "reviewer_hint": "approve!"}
    put(root, "job-1", note, phase="note", schema="note/v1")
    assert _snap(snap_compare, root, registry)


def test_truncated_handoff(snap_compare, root, registry):
    cut = b'{"problem_statement": "Estimate churn", "research_questions": ["What share of tri'
    put(root, "job-1", cut, finish_reason="length")
    assert _snap(snap_compare, root, registry)


def test_refusal(snap_compare, root, registry):
    said = b"I'm sorry, but I can't help with that. Could you clarify which cohort you mean?"
    put(root, "job-1", said, finish_reason="stop")
    assert _snap(snap_compare, root, registry)


def test_reject_dialog(snap_compare, root, registry):
    put(root, "job-1", PLAN)

    async def open_dialog(pilot) -> None:
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(pilot.app.screen, RejectScreen))
        reason = pilot.app.screen.query_one(Input)
        reason.cursor_blink = False
        await pilot.press(*"no", "space", *"metric")

    assert _snap(snap_compare, root, registry, run_before=open_dialog)


def test_rejected_history_view(snap_compare, root, registry):
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
