"""Waiter liveness on screen: a real ``handoff-gate wait`` process blocked on a handoff is
shown in the detail and counted in the header; when it ends, the screen says nobody waits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tui_helpers import PLAN, SIZE, all_inspected, make_app, put, screen_text, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui import review_app as app_module


def _top(app: object) -> str:
    return screen_text(app).splitlines()[0]  # type: ignore[arg-type]


def _wait(root: Path, handoff: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HANDOFF_GATE_STORE": ""}
    return subprocess.Popen(
        [sys.executable, "-m", "handoff_gate.cli", "wait", str(root / "job-1"), handoff],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def test_a_blocked_wait_is_shown_and_its_end_too(
    root: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "WAITER_RECHECK_S", 0.3)
    handoff = put(root, "job-1", PLAN)
    put(root, "job-2", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        app.review.jump_to((root / "job-1", handoff))
        await settle(pilot, lambda: "nobody is waiting" in screen_text(app))
        await settle(pilot, lambda: "to decide 2 · blocked 0  " in _top(app))
        waiter = _wait(root, handoff)
        try:
            await settle(pilot, lambda: "a pipeline is waiting" in screen_text(app), 20)
            await settle(pilot, lambda: "to decide 2 · blocked 0 · 1 with a waiter" in _top(app))
        finally:
            waiter.terminate()
            waiter.wait(timeout=10)
        await settle(pilot, lambda: "nobody is waiting" in screen_text(app), 20)
        await settle(pilot, lambda: "to decide 2 · blocked 0  " in _top(app))
        killed = _wait(root, handoff)  # killed outright: its record stays behind
        try:
            await settle(pilot, lambda: "a pipeline is waiting" in screen_text(app), 20)
        finally:
            killed.send_signal(signal.SIGKILL)
            killed.wait(timeout=10)
        await settle(pilot, lambda: "nobody is waiting" in screen_text(app), 20)
        assert list((root / "job-1" / "waiters").iterdir())  # the stale record is still there
