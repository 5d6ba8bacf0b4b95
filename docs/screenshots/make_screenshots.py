"""Regenerate the walkthrough's screenshots from the real app, driven headless with Pilot.

    .venv/bin/python docs/screenshots/make_screenshots.py

Each journey runs on a scratch copy of the sample runs (made by the demo's own
``prepare_workspace``) plus a live run fed with the simulator's drafts, so the pictures
show exactly what ``handoff-gate demo`` shows. Nothing in the repository is touched
except the SVG files next to this script.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from handoff_gate.demo.runner import CONTRACTS, prepare_workspace
from handoff_gate.demo.simulator import (
    LIVE_RUN,
    PHASES,
    design_first,
    plan_first,
    plan_revised,
    verify_claimed,
)
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.gates.store.waiters import registered
from handoff_gate.tui.model import ReviewOptions, Show
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.stats import StatsScreen
from handoff_gate.tui.widgets.detail import Body, Detail
from handoff_gate.tui.widgets.handoff_list import HandoffList

OUT = Path(__file__).resolve().parent
#: Where to write instead (the test that keeps this script working writes to a temp folder).
OUT_ENV = "HANDOFF_GATE_SHOTS_DIR"
SIZE = (132, 40)
BOUND_SECONDS = 30.0
FIXED_TIME = "2026-03-10T14:05:00.000Z"
REJECT_REASON = "Too broad for a first step: report on failed payments before retrying any."


def fixed_clock() -> None:
    """Stamp live handoffs and decisions with a fixed time so the pictures do not drift."""
    audit.now_iso = lambda: FIXED_TIME


def live_submit(workspace: Path, phase_name: str, payload: bytes) -> str:
    phase = next(p for p in PHASES if p.name == phase_name)
    ref = submit(
        workspace / LIVE_RUN,
        payload,
        phase=phase.name,
        schema_id=phase.schema,
        from_role=phase.from_role,
        to_role=phase.to_role,
        finish_reason="stop",
    )
    return ref.id


def as_bytes(payload: dict[str, object]) -> bytes:
    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode()


async def settle(pilot: Pilot[int], condition: Callable[[], bool], what: str) -> None:
    """Let the app's workers catch up until ``condition`` holds, within a bound."""
    deadline = time.monotonic() + BOUND_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the app never showed {what}")
        await pilot.pause(0.05)


def settled(app: ReviewApp) -> bool:
    """Every handoff inspected and nothing left in the backlog: no picture mid-scan."""
    entries = app.review.entries.values()
    return bool(entries) and all(e.state is not None for e in entries) and not app.feed.backlog


def key_of(workspace: Path, run: str, handoff: str) -> tuple[Path, str]:
    """How the app keys a handoff of the file store: its run folder's absolute path."""
    return (workspace.absolute() / run, handoff)


async def select(
    pilot: Pilot[int], app: ReviewApp, workspace: Path, run: str, handoff: str
) -> None:
    key = key_of(workspace, run, handoff)
    await settle(pilot, lambda: settled(app) and key in app.review.entries, f"{run}/{handoff}")
    app.review.jump_to(key)
    await settle(
        pilot,
        lambda: (
            (entry := app.review.current_entry()) is not None
            and entry.key == key
            and entry.report is not None
        ),
        f"{run}/{handoff} inspected",
    )
    await pilot.pause()


def _app(
    workspace: Path, registry: Registry, reviewer: str, *, show: str, read_only: bool = False
) -> ReviewApp:
    """The app as ``watch`` builds it, over a registry loaded already."""
    gate = Gate(setup=assemble(workspace, contracts=registry, env={}))
    options = ReviewOptions(reviewer=reviewer, show=Show(show), quiet=True, read_only=read_only)
    return ReviewApp(gate, options)


def shoot(app: ReviewApp, name: str) -> None:
    out = Path(os.environ.get(OUT_ENV) or OUT)
    app.save_screenshot(filename=f"{name}.svg", path=str(out))
    print(f"wrote {out / name}.svg")


async def operator(workspace: Path, registry: Registry) -> None:
    """An operator approves the live Phase 1 plan, which a pipeline is blocked on."""
    plan_id = live_submit(workspace, "plan", as_bytes(plan_first(None)))
    app = _app(workspace, registry, "operator", show="pending")
    with registered(workspace / LIVE_RUN, plan_id, FIXED_TIME):  # as a pipeline's wait does
        async with app.run_test(size=SIZE) as pilot:
            await select(pilot, app, workspace, LIVE_RUN, plan_id)
            shoot(app, "operator-1-live-plan")
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, ApproveScreen), "the dialog")
            await pilot.pause()
            shoot(app, "operator-2-confirm")
            await pilot.press("y")
            key = key_of(workspace, LIVE_RUN, plan_id)
            await settle(
                pilot, lambda: app.review.entries[key].decision is not None, "the approval"
            )
            app.review.jump_to(key)
            await pilot.pause()
            shoot(app, "operator-3-approved")


async def reviewer(workspace: Path, registry: Registry) -> None:
    """A reviewer goes through rejected handoffs afterwards."""
    app = _app(workspace, registry, "reviewer", show="rejected", read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, workspace, "planner-to-executor", "0001-execute")
        shoot(app, "reviewer-1-rejected-secret")
        await select(pilot, app, workspace, "lenient-planner-designer", "0001-plan")
        shoot(app, "reviewer-2-defaults")
        await select(pilot, app, workspace, "wire-faults", "0010-brief")
        shoot(app, "reviewer-3-unsafe-text")
        await pilot.resize_terminal(SIZE[0], 56)  # tall enough for every figure and the bars
        await pilot.press("S")
        await settle(
            pilot,
            lambda: isinstance(app.screen, StatsScreen) and app.screen.stats is not None,
            "the stats screen",
        )
        await pilot.pause()
        shoot(app, "reviewer-4-stats")


async def small(workspace: Path, registry: Registry) -> None:
    """The reviewer's journey on an 80x24 terminal, then on a phone (48 columns, as a
    phone's browser shows ``serve``): one pane at a time, Enter opens the handoff."""
    app = _app(workspace, registry, "reviewer", show="rejected", read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, app, workspace, "planner-to-executor", "0001-execute")
        shoot(app, "small-80x24-rejected")
        await pilot.resize_terminal(48, 40)
        await pilot.pause()
        app.query_one(HandoffList).focus()
        await pilot.pause()
        shoot(app, "phone-1-list")
        await pilot.press("enter")
        await settle(pilot, lambda: app.query_one(Detail).region.width > 0, "the handoff")
        await pilot.pause()
        shoot(app, "phone-2-handoff")


async def demo(workspace: Path, registry: Registry) -> None:
    """The demo: a rejected plan comes back revised, and a false 'passed' is blocked."""
    live = workspace / LIVE_RUN
    first = live_submit(workspace, "plan", as_bytes(plan_first(None)))
    decide(
        live,
        first,
        "reject",
        reason=REJECT_REASON,
        category="out_of_scope",
        reviewer="newcomer",
        registry=registry,
    )
    second = live_submit(workspace, "plan", as_bytes(plan_revised(REJECT_REASON)))
    decide(live, second, "approve", reviewer="newcomer", registry=registry)
    design = live_submit(workspace, "design", as_bytes(design_first(None)))
    decide(live, design, "approve", reviewer="newcomer", registry=registry)
    verify = live_submit(workspace, "verify", as_bytes(verify_claimed(None)))
    app = _app(workspace, registry, "newcomer", show="all")
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, workspace, LIVE_RUN, second)
        await pilot.press("d")
        await settle(pilot, lambda: app.query_one(Detail).body is Body.DIFF, "the diff view")
        await pilot.pause()
        shoot(app, "demo-1-replan-diff")
        await pilot.press("d")
        await select(pilot, app, workspace, LIVE_RUN, verify)
        await pilot.press("a")
        await pilot.pause(0.3)
        shoot(app, "demo-2-blocked-verify")


async def main() -> int:
    fixed_clock()
    for journey in (operator, reviewer, small, demo):
        with tempfile.TemporaryDirectory(prefix="handoff-gate-shots-") as scratch:
            workspace = prepare_workspace(Path(scratch) / "workspace")
            registry = load_registry(str(workspace / CONTRACTS))
            await journey(workspace, registry)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
