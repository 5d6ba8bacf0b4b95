"""``e``: edit the payload (in ``$EDITOR``, really run, or in the app), see the diff, approve
the edit; an edit that is not approvable shows its findings and writes nothing."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea
from tui_helpers import (
    PLAN,
    SIZE,
    all_inspected,
    make_app,
    notices,
    placed,
    put,
    review_app,
    screen_text,
    settle,
)

from handoff_gate.gates.api import read_decision, submit, wait
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.screens.approve_edit import ApproveEditScreen
from handoff_gate.tui.screens.edit_text import EditTextScreen


def _editor(folder: Path, changes: dict[str, Any], status: int = 0) -> Path:
    """A real editor program: it rewrites the file it is given with ``changes`` merged in
    (and exits with ``status``), as a person saving in vim would."""
    script = folder / "fake-editor"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "value = json.load(open(path))\n"
        f"value.update({changes!r})\n"
        "open(path, 'w').write(json.dumps(value, indent=2) + '\\n')\n"
        f"sys.exit({status})\n"
    )
    script.chmod(0o700)
    return script


@pytest.fixture
def use_editor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., Path]:
    def use(changes: dict[str, Any], status: int = 0) -> Path:
        script = _editor(tmp_path, changes, status)
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", str(script))
        return script

    return use


async def test_the_editor_s_edit_is_shown_as_a_diff_and_approved_as_edited(
    root: Path, registry: Registry, use_editor: Callable[..., Path]
) -> None:
    handoff = put(root, "job-1", PLAN)
    use_editor({"recommended_profile": "library"})
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, ApproveEditScreen))
        shown = screen_text(app)
        assert f'-  "recommended_profile": "{PLAN["recommended_profile"]}"' in shown
        assert '+  "recommended_profile": "library"' in shown
        assert app.screen.focused is not None and app.screen.focused.id == "cancel"
        await pilot.press("y")
        await settle(pilot, lambda: read_decision(root / "job-1", handoff) is not None)
        decision = read_decision(root / "job-1", handoff)
        assert decision is not None and decision.edited_sha256 is not None
        assert "approved an edit by alice" in notices(app)
        await pilot.press("f", "f")  # open → rejected → approved
        edited_line = f"edited by alice: delivers the edit, sha256 {decision.edited_sha256[:12]}"
        await settle(pilot, lambda: "· edited" in screen_text(app))  # the summary says so
        await pilot.press("i")  # the decision in full names the edit's hash
        await settle(pilot, lambda: edited_line in screen_text(app))
    result = wait(root / "job-1", handoff, registry=registry, timeout=5)
    assert result.outcome is WaitOutcome.APPROVED and result.edited
    assert result.payload is not None and result.payload["recommended_profile"] == "library"
    assert result.edited_sha256 == decision.edited_sha256


async def test_an_edit_that_adds_a_secret_shows_its_findings_and_writes_nothing(
    root: Path, registry: Registry, use_editor: Callable[..., Path]
) -> None:
    handoff = put(root, "job-1", PLAN)
    use_editor({"risks": ["the key AKIAIOSFODNN7EXAMPLE leaked"]})
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("e")
        await settle(pilot, lambda: "Edit refused" in notices(app))
        assert "not approvable (secret)" in notices(app)
        assert "secret at risks[0]" in notices(app)
        assert "AKIAIOSFODNN7EXAMPLE" not in notices(app)
        assert not isinstance(app.screen, ApproveEditScreen)
    assert read_decision(root / "job-1", handoff) is None
    assert not (root / "job-1" / "edits").exists()


async def test_an_editor_that_fails_writes_nothing(
    root: Path, registry: Registry, use_editor: Callable[..., Path]
) -> None:
    handoff = put(root, "job-1", PLAN)
    use_editor({"risks": []}, status=3)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("e")
        await settle(pilot, lambda: "exited with status 3" in notices(app))
    assert read_decision(root / "job-1", handoff) is None


async def test_without_an_editor_the_app_edits_in_a_text_area(
    root: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    handoff = put(root, "job-1", PLAN)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, EditTextScreen))
        area = app.screen.query_one(TextArea)
        assert json.loads(area.text) == PLAN
        area.text = json.dumps({**PLAN, "risks": ["late data"]}, indent=2)
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, ApproveEditScreen))
        assert '+    "late data"' in screen_text(app)
        await pilot.press("n")
        await settle(pilot, lambda: not isinstance(app.screen, ApproveEditScreen))
        assert read_decision(root / "job-1", handoff) is None
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, EditTextScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, EditTextScreen))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, EditTextScreen))
        area = app.screen.query_one(TextArea)
        typed = area.text.replace('"risks"', '"risks" oops', 1)
        area.text = typed
        await pilot.press("ctrl+s")  # not JSON: the editor stays, with what was typed
        await pilot.pause()
        assert isinstance(app.screen, EditTextScreen) and area.text == typed
        assert "Not JSON at line" in screen_text(app) and "Esc to cancel" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, EditTextScreen))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, EditTextScreen))
        await pilot.press("ctrl+s")  # saved unchanged
        await settle(pilot, lambda: "changed nothing" in notices(app))
    assert read_decision(root / "job-1", handoff) is None
    assert FilesystemStore().decision_records(str(root / "job-1"), handoff) == {}


async def test_read_only_review_offers_no_edit(root: Path, registry: Registry) -> None:
    handoff = put(root, "job-1", PLAN)
    app = make_app(root, registry, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("e")
        await settle(pilot, lambda: "Read-only review" in notices(app))
        assert not isinstance(app.screen, EditTextScreen | ApproveEditScreen)
    assert read_decision(root / "job-1", handoff) is None


def test_the_edit_confirmation_snapshot(
    snap_compare: Callable[..., bool],
    root: Path,
    registry: Registry,
    use_editor: Callable[..., Path],
) -> None:
    put(root, "job-1", PLAN)
    use_editor({"recommended_profile": "library", "risks": ["late billing exports"]})
    app = make_app(root, registry)

    async def ready(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: placed(app))
        await settle(pilot, lambda: "inspecting" not in screen_text(app))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, ApproveEditScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


async def test_an_edit_approved_in_the_tui_over_postgresql_is_kept_in_the_store(
    pg_url: str, registry: Registry, use_editor: Callable[..., Path]
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    use_editor({"recommended_profile": "library"})
    with PostgresStore(pg_url) as pipeline:
        handoff = submit(
            "alpha", json.dumps(PLAN).encode(), phase="plan", schema_id="plan/v1", store=pipeline
        ).id
        app = review_app(None, registry, reviewer="alice", quiet=True, store=PostgresStore(pg_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all_inspected(app))
            await pilot.press("e")
            await settle(pilot, lambda: isinstance(app.screen, ApproveEditScreen))
            await pilot.press("y")
            key = (Path("alpha"), handoff)
            await settle(pilot, lambda: app.review.entries[key].state is HandoffState.APPROVED)
        result = wait("alpha", handoff, registry=registry, store=pipeline, timeout=5)
    assert result.outcome is WaitOutcome.APPROVED and result.edited
    assert result.payload is not None and result.payload["recommended_profile"] == "library"
