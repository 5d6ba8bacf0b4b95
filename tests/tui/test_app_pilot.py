"""The operator's journeys through the real app, driven with Pilot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tui_helpers import (
    PLAN,
    SIZE,
    all_inspected,
    cursor_entry,
    decide_as,
    make_app,
    notices,
    placed,
    put,
    review_app,
    screen_text,
    settle,
)

from handoff_gate.cli.main import main
from handoff_gate.gates.api import read_decision, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.standing import report_in_run
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.report import FieldRow
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.full_value import FullValueScreen
from handoff_gate.tui.screens.reject import RejectScreen
from handoff_gate.tui.widgets.field_tree import FieldTree


async def test_approve_confirms_with_y_and_records_the_reviewed_hash(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        assert app.screen.focused is not None and app.screen.focused.id == "cancel"
        reviewed = app.review.entries[(root / "job-1", handoff)].report
        assert reviewed is not None and reviewed.sha256[:12] in screen_text(app)
        await pilot.press("y")
        await settle(pilot, lambda: read_decision(root / "job-1", handoff) is not None)
        decision = read_decision(root / "job-1", handoff)
        assert decision is not None
        assert decision.action is Action.APPROVE and decision.reviewer == "alice"
        assert decision.sha256 == reviewed.sha256
        await settle(pilot, lambda: app.review.listed() == [])


async def test_enter_n_and_escape_in_the_approve_dialog_write_nothing(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        for key in ("enter", "n", "escape"):
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
            await pilot.press(key)
            await settle(pilot, lambda: not isinstance(app.screen, ApproveScreen))
        assert read_decision(root / "job-1", handoff) is None


async def test_reject_needs_a_reason_and_records_it_with_the_category(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(app.screen, RejectScreen))
        await pilot.press("enter")
        assert isinstance(app.screen, RejectScreen)
        assert "A reason is required" in screen_text(app)
        await pilot.press(*"no", "space", *"metrics")
        await pilot.press("tab", "home", "down")
        assert "(•) truncated" in screen_text(app)
        assert "(•) other" not in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, lambda: read_decision(root / "job-1", handoff) is not None)
        decision = read_decision(root / "job-1", handoff)
        assert decision is not None and decision.action is Action.REJECT
        assert decision.reason == "no metrics"
        assert decision.category is Category.TRUNCATED


@pytest.mark.parametrize("tabs", [0, 3])
async def test_enter_submits_the_reject_dialog_from_the_reason_and_the_button(
    root: Path, registry: Registry, tabs: int
) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(app.screen, RejectScreen))
        await pilot.press(*"vague", *["tab"] * tabs)
        assert "(•) other" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, lambda: read_decision(root / "job-1", handoff) is not None)
    decision = read_decision(root / "job-1", handoff)
    assert decision is not None and decision.reason == "vague"
    assert decision.category is Category.OTHER


async def test_escape_cancels_the_reject_dialog(root: Path, registry: Registry) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("r", *"typed", "escape")
        await settle(pilot, lambda: not isinstance(app.screen, RejectScreen))
    assert read_decision(root / "job-1", handoff) is None


async def test_approval_of_a_blocked_handoff_is_refused_with_its_reason(
    root: Path, registry: Registry
) -> None:
    cut_off = b'{"problem_statement": "Estimate churn", "research_questions": ["What share'
    handoff = put(root, "job-1", cut_off, finish_reason="length")
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        assert app.review.entries[(root / "job-1", handoff)].state is HandoffState.BLOCKED
        await pilot.press("a")
        await settle(pilot, lambda: "Approval refused" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)
        assert "is blocked (truncated)" in notices(app)
    assert read_decision(root / "job-1", handoff) is None


async def test_filter_switches_between_pending_rejected_approved_and_all(
    root: Path, registry: Registry
) -> None:
    waiting = put(root, "job-1", PLAN)
    approved = put(root, "job-1", PLAN)
    rejected = put(root, "job-1", PLAN)
    decide_as(root, "job-1", approved, "approve", registry)
    decide_as(root, "job-1", rejected, "reject", registry, reason="vague")
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        seen = []
        for _ in range(4):
            seen.append(sorted(handoff for _, handoff in app.review.listed()))
            await pilot.press("f")
        assert seen == [[waiting], [rejected], [approved], sorted([waiting, approved, rejected])]


async def test_n_and_p_jump_between_handoffs_waiting_for_a_decision(
    root: Path, registry: Registry
) -> None:
    ids = [put(root, "job-1", PLAN) for _ in range(4)]
    decide_as(root, "job-1", ids[2], "approve", registry)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))

        def current() -> str:
            return cursor_entry(app).ref.id

        assert current() == ids[0], "the start is the oldest undecided one (listed last)"
        await pilot.press("n")
        assert current() == ids[3], "n wraps to the top"
        await pilot.press("n")
        assert current() == ids[1], "and skips the approved one"
        await pilot.press("p")
        assert current() == ids[3]


@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
async def test_a_handoff_written_while_running_appears_and_is_announced(
    root: Path, registry: Registry, poll: bool
) -> None:
    selected = put(root, "job-1", PLAN)
    app = review_app(root, registry, reviewer="alice", quiet=True, poll=poll)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        fresh = submit(root / "job-2", b'{"oops": ', phase="design", schema_id="design/v1")
        key = (root / "job-2", fresh.id)
        await settle(pilot, lambda: key in app.review.listed())
        await settle(pilot, lambda: app.review.entries[key].state is HandoffState.BLOCKED)
        await settle(pilot, lambda: "New handoff" in notices(app))
        assert app.review.listed()[0] == key, "the newest handoff is listed first"
        assert cursor_entry(app).ref.id == selected, "the selection did not move"


async def test_a_decision_written_by_the_cli_appears(root: Path, registry: Registry) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        cli = Path(sys.executable).with_name("handoff-gate")
        done = subprocess.run(
            [
                cli,
                "decide",
                root / "job-1",
                handoff,
                "reject",
                "--reason",
                "off topic",
                "--reviewer",
                "bob",
            ],
            capture_output=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        entry = app.review.entries[(root / "job-1", handoff)]
        await settle(pilot, lambda: entry.state is HandoffState.REJECTED)
        await settle(pilot, lambda: "off topic" in screen_text(app))
        assert "bob" in screen_text(app)


async def test_a_file_edited_after_approval_shows_as_changed(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    decide_as(root, "job-1", handoff, "approve", registry)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        entry = app.review.entries[(root / "job-1", handoff)]
        assert entry.state is HandoffState.APPROVED
        path = root / "job-1" / "handoffs" / f"{handoff}.json"
        edited = path.read_bytes().replace(b"Estimate", b"Guess")
        temp = path.with_name(".edit.tmp")
        temp.write_bytes(edited)
        os.replace(temp, path)
        await settle(pilot, lambda: entry.state is HandoffState.CHANGED)
        await settle(pilot, lambda: "no longer applies" in screen_text(app))
        await pilot.press("a")
        await settle(pilot, lambda: "a new handoff must be submitted" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)


async def test_a_huge_file_is_blocked_unread(
    root: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_in_run, "MAX_HANDOFF_BYTES", 4096)
    small = put(root, "job-1", PLAN)
    huge = put(root, "job-1", {**PLAN, "problem_statement": "x" * 10_000})
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        assert app.review.entries[(root / "job-1", small)].state is HandoffState.PENDING
        assert app.review.entries[(root / "job-1", huge)].state is HandoffState.BLOCKED
        await settle(pilot, lambda: placed(app))
        assert cursor_entry(app).ref.id == small, "the start is the one that can be decided"
        await pilot.press("up")
        assert cursor_entry(app).ref.id == huge
        await settle(pilot, lambda: "oversize" in screen_text(app))


async def test_deleted_and_garbage_files_never_crash_the_app(
    root: Path, registry: Registry
) -> None:
    keep = put(root, "job-1", PLAN)
    doomed = put(root, "job-1", PLAN)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        (root / "job-1" / "handoffs" / f"{doomed}.json").unlink()
        (root / "job-1" / "handoffs" / "0009-plan.json").write_bytes(b'{"format": "hand')
        (root / "job-1" / "handoffs" / "0010-plan.json").write_bytes(b"\xff\xfe" * 64)
        await settle(pilot, lambda: (root / "job-1", doomed) not in app.review.listed())
        garbage = [(root / "job-1", "0009-plan"), (root / "job-1", "0010-plan")]
        await settle(pilot, lambda: all(k in app.review.entries for k in garbage))
        await settle(pilot, lambda: all(app.review.entries[k].state is not None for k in garbage))
        assert all(app.review.entries[k].state is HandoffState.BLOCKED for k in garbage)
        assert app.review.entries[(root / "job-1", keep)].state is HandoffState.PENDING


async def test_raw_view_shows_the_exact_text_with_escapes_made_visible(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", b'{"problem_statement": "fine\x1b[2J\xe2\x80\xaewipe"}')
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("v")
        await settle(pilot, lambda: "RAW" in screen_text(app))
        assert '{"problem_statement": "fine⟨ESC⟩[2J⟨U+202E⟩wipe"}' in screen_text(app)
        await pilot.press("v")
        await settle(pilot, lambda: "RAW" not in screen_text(app))


async def test_diff_compares_with_the_previous_handoff_of_the_same_phase(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    put(root, "job-1", {"oops": 1}, phase="design", schema="design/v1")
    put(root, "job-1", {**PLAN, "risks": ["The export may be late"]})
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        app.review.jump_to((root / "job-1", "0003-plan"))
        await pilot.press("d")
        await settle(pilot, lambda: "DIFF" in screen_text(app))
        shown = screen_text(app)
        assert "0001-plan → 0003-plan" in shown
        assert '-    "The export may miss retries' in shown
        assert '+    "The export may be late"' in shown


async def test_watching_a_single_run_directory_and_an_initially_empty_run(
    root: Path, registry: Registry
) -> None:
    (root / "job-1" / "handoffs").mkdir(parents=True)
    app = make_app(root / "job-1", registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "No handoffs yet" in screen_text(app))
        handoff = put(root, "job-1", PLAN)
        await settle(pilot, lambda: (root / "job-1", handoff) in app.review.listed())
        await settle(pilot, lambda: all_inspected(app))
        assert '"Estimate how much of' in screen_text(app)


async def test_a_long_list_field_is_shown_a_chunk_at_a_time(root: Path, registry: Registry) -> None:
    put(
        root,
        "job-1",
        {"title": "many", "tags": [f"tag-{i}" for i in range(450)]},
        phase="note",
        schema="note/v1",
    )
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        tree = app.query_one(FieldTree)
        await pilot.press("tab", "down", "down", "enter")
        await settle(pilot, lambda: any("tag-199" in line for line in tree.shown_text()))
        lines = tree.shown_text()
        assert not any("tag-200" in line for line in lines)
        assert any("250 more: press Enter to show the next 200" in line for line in lines)
        await pilot.press("end", "up", "enter")  # the "more" line, above the last field
        await settle(pilot, lambda: any("tag-399" in line for line in tree.shown_text()))
        assert any(
            line.endswith("50 more: press Enter to show the next 200") for line in tree.shown_text()
        )
        row = tree.cursor_node_data  # the first of the chunk it added
        assert isinstance(row, FieldRow) and row.value == "tag-200"


async def test_the_command_palette_jumps_to_a_handoff_hidden_by_the_filter(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    decided = put(root, "job-2", PLAN)
    decide_as(root, "job-2", decided, "approve", registry)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        assert cursor_entry(app).run == "job-1"
        await pilot.press("ctrl+p", *"job-2 0001")
        await settle(pilot, lambda: "Jump to this handoff" in screen_text(app))
        await pilot.press("enter")
        await settle(pilot, lambda: cursor_entry(app).run == "job-2")
        assert app.review.show.value == "all"


async def _bells_for_a_new_handoff(root: Path, registry: Registry, quiet: bool) -> list[int]:
    """Start the app on a listed handoff, then write another: the bells it rang."""
    app = review_app(root, registry, reviewer="alice", quiet=quiet)
    rings: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app, "bell", lambda: rings.append(1))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all_inspected(app))
            assert rings == []
            put(root, "job-1", PLAN)
            await settle(pilot, lambda: "New handoff" in notices(app))
    return rings


async def test_a_new_pending_handoff_rings_the_bell_unless_quiet(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    assert await _bells_for_a_new_handoff(root, registry, quiet=False) == [1]
    assert await _bells_for_a_new_handoff(root, registry, quiet=True) == []


async def test_an_unreadable_decision_is_shown_and_never_taken_for_approval(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    (root / "job-1" / "decisions" / f"{handoff}.json").write_text('{"action": "approve"')
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        assert app.review.entries[(root / "job-1", handoff)].state is HandoffState.UNUSABLE
        await settle(pilot, lambda: "DECISION UNUSABLE" in screen_text(app))
        assert "EOF while parsing" in screen_text(app)
        assert "UNUSABLE" in screen_text(app).splitlines()[1]
        await pilot.press("a")
        await settle(pilot, lambda: "already decided" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)


async def test_watching_resumes_when_the_root_folder_comes_back(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        shutil.rmtree(root)
        await settle(pilot, lambda: app.review.listed() == [])
        await settle(pilot, lambda: "stopped: the folder was removed" in notices(app))
        root.mkdir()
        handoff = put(root, "job-2", PLAN)
        await settle(pilot, lambda: (root / "job-2", handoff) in app.review.listed())


async def test_the_approve_dialog_counts_and_lists_the_warnings(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", {"title": "Weekly", "body": "", "extra": 1}, phase="note", schema="note/v1")
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        shown = screen_text(app)
        assert "with 4 warnings" in shown
        for code in ("empty_field at body", "unknown_key at extra", "defaulted_field at tags"):
            assert code in shown


async def test_approval_is_refused_when_the_file_changed_while_the_dialog_was_open(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        path = root / "job-1" / "handoffs" / f"{handoff}.json"
        path.write_bytes(path.read_bytes().replace(b"Estimate", b"Ignore"))
        await pilot.press("y")
        await settle(pilot, lambda: "changed since it was reviewed" in notices(app))
    assert read_decision(root / "job-1", handoff) is None


def test_watch_on_a_missing_folder_exits_with_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["watch", str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


async def test_question_mark_shows_the_keys_and_escape_closes_them(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("question_mark")
        await settle(pilot, lambda: "approve the selected handoff" in screen_text(app))
        await pilot.press("a")
        assert not isinstance(app.screen, ApproveScreen), "keys of the main view are inert"
        await pilot.press("escape")
        await settle(pilot, lambda: "approve the selected handoff" not in screen_text(app))


async def test_enter_on_a_field_opens_its_whole_value_and_escape_returns(
    root: Path, registry: Registry
) -> None:
    long_text = "Estimate churn " + "and keep going " * 150 + "THE END"
    put(root, "job-1", {**PLAN, "problem_statement": long_text})
    app = make_app(root, registry)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        shown = app.query_one(FieldTree).shown_text()
        assert "THE END" not in " ".join(shown)
        assert "+272 chars not shown: v for the raw text" in " ".join(s.strip() for s in shown)
        await pilot.press("tab", "enter")
        await settle(pilot, lambda: isinstance(app.screen, FullValueScreen))
        assert "field problem_statement" in screen_text(app)
        await pilot.press("end")  # the value's last line
        await settle(pilot, lambda: "THE END" in screen_text(app))
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, FullValueScreen))
        await pilot.press("space")
        await settle(pilot, lambda: isinstance(app.screen, FullValueScreen))


async def test_the_palette_finds_a_decided_handoff_by_category_and_reason(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    rejected = put(root, "job-2", PLAN)
    decide_as(
        root,
        "job-2",
        rejected,
        "reject",
        registry,
        reason="Out of this quarter.",
        category="out_of_scope",
    )
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("ctrl+p", *"quarter")
        await settle(pilot, lambda: "out_of_scope" in screen_text(app))
        assert "by alice" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, lambda: cursor_entry(app).run == "job-2")


async def test_handoffs_arriving_together_are_told_in_one_notification_per_run(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = review_app(root, registry, reviewer="alice", quiet=True, poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        plan = json.dumps(PLAN).encode()
        fresh = [submit(root / "web", plan, phase="plan", schema_id="plan/v1").id for _ in "abc"]
        await settle(pilot, lambda: "3 new handoffs in web" in notices(app))
        told = [n for n in notices(app).splitlines() if "new handoffs in web" in n]
        assert len(told) == 1 and all(handoff in told[0] for handoff in fresh)
        await pilot.press("N")  # off: rows still arrive, nothing is announced
        await settle(pilot, lambda: "notifications off" in notices(app))
        later = submit(root / "web", plan, phase="plan", schema_id="plan/v1").id
        await settle(pilot, lambda: (root / "web", later) in app.review.listed())
        await pilot.pause(1.5)
        assert later not in notices(app)
