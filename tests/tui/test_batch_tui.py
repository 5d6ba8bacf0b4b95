"""Batch decisions, withdrawals and deadlines in the TUI, driven with Textual's Pilot.

What a reviewer would notice: twenty clean handoffs needing more than `*`, `A` and a
confirmation; a blocked, expired or withdrawn handoff that can be marked or approved; a
confirmation that does not show every item; the cursor jumping back to the top after a
batch; a withdrawn or expired row that does not say why.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import Input, Static
from tui_helpers import (
    PLAN,
    SIZE,
    all_inspected,
    cursor_entry,
    list_rows,
    make_app,
    notices,
    placed,
    put,
    screen_text,
    settle,
)

import handoff_gate as hg
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.batch_approve import BatchApproveScreen, BatchLine, grouped
from handoff_gate.tui.screens.find import FindScreen
from handoff_gate.tui.screens.reject import RejectScreen
from handoff_gate.tui.screens.review import ReviewScreen

BROKEN = b'{"problem_statement": '


def review_screen(app: ReviewApp) -> ReviewScreen:
    return app.review


def states(root: Path, run: str, registry: Registry) -> list[hg.HandoffState]:
    with hg.Gate(str(root), contracts=registry) as gate:
        return [gate.standing(run, ref).state for ref in gate.handoffs(run)]


async def test_twenty_clean_handoffs_take_three_keystrokes(root: Path, registry: Registry) -> None:
    ids = [put(root, "fan", PLAN) for _ in range(20)]
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        keys = ["asterisk", "A"]
        await pilot.press(*keys)
        await settle(pilot, lambda: isinstance(app.screen, BatchApproveScreen))
        listed = str(app.screen.query_one("#batch-lines", Static).render())
        assert all(f"fan / {handoff}" in listed for handoff in ids)
        assert listed.count("plan/v1") == 20 and listed.count("sha256 ") == 20
        keys.append("y")
        await pilot.press("y")
        await settle(pilot, lambda: "Approved 20 of 20" in notices(app))
        assert len(keys) <= 4
    assert states(root, "fan", registry) == [hg.HandoffState.APPROVED] * 20


async def test_only_decidable_handoffs_can_be_marked(root: Path, registry: Registry) -> None:
    put(root, "job", PLAN)
    put(root, "job", BROKEN)
    put(root, "job", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        screen = review_screen(app)
        await pilot.press("asterisk")
        await settle(pilot, lambda: len(screen.marked) == 2)
        assert all(app.review.entries[key].decidable for key in screen.marked)
        assert "2 marked" in screen_text(app)
        blocked = next(
            e.key for e in app.review.entries.values() if e.state is hg.HandoffState.BLOCKED
        )
        screen.jump_to(blocked)
        await pilot.press("space")
        await settle(pilot, lambda: "Only a handoff you can decide now" in notices(app))
        assert blocked not in screen.marked
        first = screen.marked[0]
        screen.jump_to(first)
        await pilot.press("space")
        await settle(pilot, lambda: len(screen.marked) == 1)
        await pilot.press("space")
        await settle(pilot, lambda: len(screen.marked) == 2)
        await pilot.press("A")
        await settle(pilot, lambda: isinstance(app.screen, BatchApproveScreen))
        listed = str(app.screen.query_one("#batch-lines", Static).render())
        assert blocked[1] not in listed
        await pilot.press("y")
        await settle(pilot, lambda: "Approved 2 of 2" in notices(app))
        await settle(pilot, lambda: "marked" not in screen_text(app))
    assert states(root, "job", registry) == [
        hg.HandoffState.APPROVED,
        hg.HandoffState.BLOCKED,
        hg.HandoffState.APPROVED,
    ]


async def test_R_rejects_the_marked_with_one_reason(root: Path, registry: Registry) -> None:
    put(root, "job", PLAN)
    put(root, "job", PLAN)
    put(root, "job", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        screen = review_screen(app)
        await pilot.press("home", "space", "down", "space")
        await settle(pilot, lambda: len(screen.marked) == 2)
        await pilot.press("R")
        await settle(pilot, lambda: isinstance(app.screen, RejectScreen))
        reason = app.screen.query_one(Input)
        await settle(pilot, lambda: reason.has_focus)
        await pilot.press(*"wrong scope")
        await settle(pilot, lambda: reason.value == "wrong scope")
        await pilot.press("enter")
        await settle(pilot, lambda: "Decided 2 of 2" in notices(app))
    found = states(root, "job", registry)
    assert sorted(found) == sorted([hg.HandoffState.REJECTED] * 2 + [hg.HandoffState.PENDING])
    with hg.Gate(str(root)) as gate:
        reasons = [
            e.get("reason") for e in gate.audit_events("job") if e["event"] == "decision_written"
        ]
    assert reasons == ["wrong scope", "wrong scope"]


async def test_R_without_marks_still_lists_the_rejected(root: Path, registry: Registry) -> None:
    put(root, "job", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        await pilot.press("R")
        await settle(pilot, lambda: "Showing rejected handoffs" in notices(app))


async def test_after_a_batch_the_cursor_stays_where_it_was(root: Path, registry: Registry) -> None:
    for _ in range(5):
        put(root, "job", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        screen = review_screen(app)
        await pilot.press("home", "space", "down", "space", "end")
        await settle(pilot, lambda: len(screen.marked) == 2)
        where = cursor_entry(app).key
        assert where not in screen.marked
        await pilot.press("A")
        await settle(pilot, lambda: isinstance(app.screen, BatchApproveScreen))
        await pilot.press("y")
        await settle(pilot, lambda: "Approved 2 of 2" in notices(app))
        await pilot.pause(0.3)
        assert cursor_entry(app).key == where


async def test_expired_and_withdrawn_rows_say_why_and_cannot_be_approved(
    root: Path, registry: Registry
) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=1)
    with hg.Gate(str(root), contracts=registry) as gate:
        expiring = gate.submit(
            "job", PLAN_BYTES, phase="plan", schema_id="plan/v1", expires_at=soon
        )
        gone = gate.submit("job", PLAN_BYTES, phase="plan", schema_id="plan/v1")
        gate.withdraw("job", gone, reason="job cancelled", by="ci")
        later = gate.submit("job", PLAN_BYTES, phase="plan", schema_id="plan/v1", expires_in="2h")
        while datetime.now(UTC) <= soon:
            time.sleep(0.05)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=(160, 35)) as pilot:
        await settle(pilot, lambda: placed(app))
        rows = list_rows(app)
        assert "left" in next(line for line in rows if later.id in line)
        assert "expired at" in next(line for line in rows if expiring.id in line)
        assert "was withdrawn" in next(line for line in rows if gone.id in line)
        screen = review_screen(app)
        screen.jump_to((root / "job", gone.id))
        decision = app.review.query_one("#decided", Static)
        await settle(pilot, lambda: "WITHDRAWN" in str(decision.render()))
        said = str(decision.render())
        assert f"{gone.id} was withdrawn by ci at" in said and ": job cancelled" in said
        screen.jump_to((root / "job", expiring.id))
        await pilot.press("a")
        await settle(pilot, lambda: "it can no longer be decided" in notices(app))
        await pilot.press("space")
        await settle(pilot, lambda: "Only a handoff you can decide now" in notices(app))
        await pilot.press("asterisk")
        await settle(pilot, lambda: len(screen.marked) == 1)
        assert screen.marked == [(root / "job", later.id)]
    assert states(root, "job", registry) == [
        hg.HandoffState.EXPIRED,
        hg.HandoffState.WITHDRAWN,
        hg.HandoffState.PENDING,
    ]


PLAN_BYTES = (Path(__file__).parents[2] / "schemas" / "examples" / "plan_v1.json").read_bytes()


async def test_a_marked_handoff_that_expires_on_screen_turns_expired_and_unmarked(
    root: Path, registry: Registry
) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=2)
    with hg.Gate(str(root), contracts=registry) as gate:
        ref = gate.submit("job", PLAN_BYTES, phase="plan", schema_id="plan/v1", expires_at=soon)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        screen = review_screen(app)
        key = (root / "job", ref.id)
        if datetime.now(UTC) < soon:
            await pilot.press("space")
            await settle(pilot, lambda: screen.marked == [key] or datetime.now(UTC) >= soon)
        await settle(pilot, lambda: app.review.entries[key].state is hg.HandoffState.EXPIRED)
        await settle(pilot, lambda: screen.marked == [])
        await pilot.press("A")
        await settle(pilot, lambda: "Nothing is marked" in notices(app))


async def test_mark_all_marks_the_run_in_view_not_every_run(root: Path, registry: Registry) -> None:
    """``*`` on a handoff of ``fan`` marks ``fan``'s clean handoffs; ``other``'s pending
    ones stay unmarked, and the batch approves only ``fan``'s."""
    ours = [put(root, "fan", PLAN) for _ in range(3)]
    theirs = [put(root, "other", PLAN) for _ in range(2)]
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        screen = review_screen(app)
        fan = next(key for key in app.review.entries if key[0].name == "fan")
        screen.jump_to(fan)
        await pilot.press("asterisk")
        await settle(pilot, lambda: len(screen.marked) == 3)
        assert {key[0].name for key in screen.marked} == {"fan"}
        await pilot.press("A")
        await settle(pilot, lambda: isinstance(app.screen, BatchApproveScreen))
        await pilot.press("y")
        await settle(pilot, lambda: "Approved 3 of 3" in notices(app))
    assert states(root, "fan", registry) == [hg.HandoffState.APPROVED] * len(ours)
    assert states(root, "other", registry) == [hg.HandoffState.PENDING] * len(theirs)


def test_the_confirmation_groups_by_run_and_phase_with_counts_and_producers() -> None:
    def line(run: str, hid: str, phase: str, producer: str) -> BatchLine:
        return BatchLine(run, hid, phase, "plan/v1", "approvable", 0, "ab" * 32, producer)

    text = grouped(
        [
            line("fan", "0001-plan", "plan", "planner"),
            line("other", "0001-design", "design", "designer"),
            line("fan", "0002-plan", "plan", "planner"),
        ]
    ).plain.splitlines()
    assert text[0] == "fan · plan (2)" and text[3] == "other · design (1)"
    assert text[1].startswith("  fan / 0001-plan  from planner")
    assert text[2].startswith("  fan / 0002-plan  from planner")


async def test_slash_narrows_the_list_to_rows_containing_a_text(
    root: Path, registry: Registry
) -> None:
    """``/`` asks for a text and lists only the rows that contain it (run, id, phase,
    producer, payload); an empty text lists every row again, and ``*`` then marks
    within what is shown."""
    put(root, "fan", PLAN)
    put(root, "fan", {**PLAN, "problem_statement": "Count the refunds issued in May"})
    put(root, "other", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app) and all_inspected(app))
        screen = review_screen(app)
        assert len(screen.listed()) == 3
        await pilot.press("slash")
        await settle(pilot, lambda: isinstance(app.screen, FindScreen))
        await pilot.press(*"REFUNDS", "enter")
        await settle(pilot, lambda: len(screen.listed()) == 1)
        (only,) = screen.listed()
        assert only[0].name == "fan" and only[1] == "0002-plan"
        assert "containing 'REFUNDS'" in screen_text(app)
        await pilot.press("asterisk")
        await settle(pilot, lambda: len(screen.marked) == 1)
        await pilot.press("slash")
        await settle(pilot, lambda: isinstance(app.screen, FindScreen))
        await pilot.press("ctrl+u", "o", "t", "h", "e", "r", "enter")
        await settle(pilot, lambda: [k[0].name for k in screen.listed()] == ["other"])
        await pilot.press("slash")
        await settle(pilot, lambda: isinstance(app.screen, FindScreen))
        await pilot.press("ctrl+u", "enter")
        await settle(pilot, lambda: len(screen.listed()) == 3)
