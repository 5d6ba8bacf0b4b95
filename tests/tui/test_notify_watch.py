"""``watch --notify-url``: the announcer runs beside the review app, over its store.

A handoff that arrives while the app runs is announced to a real JSON webhook on
127.0.0.1 and shown in the app; a notification that fails is a toast (the app owns the
screen, so nothing is printed on it) and, once the app has quit, one line on stderr
saying how many failed. The app keeps working meanwhile: the handoff is approved with
``a`` ``y`` while the failing endpoint is still being tried.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from notify_endpoint import BOUND, Endpoint, refused_port
from tui_helpers import PLAN, SIZE, put, raised, review_app, settle

from handoff_gate.cli.commands.watch import AppWarnings, announcing
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.gate import Standing
from handoff_gate.gates.notify.source import THREAD_NAME, EventSource
from handoff_gate.gates.notify.targets import targets
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.screens.approve import ApproveScreen


async def test_a_failed_notification_is_a_toast_then_one_line_and_the_app_decides_on(
    root: Path, registry: Registry, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = Endpoint()
    dead = f"json://alice:hunter2@127.0.0.1:{refused_port()}/"
    warnings = AppWarnings()
    store = FilesystemStore(root)
    app = review_app(None, registry, reviewer="alice", quiet=True, store=store)
    try:
        with announcing(app, targets([dead, endpoint.url]), False, warnings):
            async with app.run_test(size=SIZE) as pilot:
                handoff = put(root, "web", PLAN)
                key = (Path(store.run_label("web")), handoff)
                # Waited for without blocking the app's loop: the announcer begins
                # only once the app has handed its screen the core.
                await settle(pilot, lambda: not endpoint.received.empty(), timeout=BOUND)
                note = endpoint.next()
                assert f"web / {handoff}: phase plan, from planner (unsigned)" in note["message"]
                await settle(pilot, lambda: key in app.review.entries, timeout=BOUND)
                await settle(
                    pilot,
                    lambda: any(n.title == "Notifications" for n in raised(app)),
                    timeout=BOUND,
                )
                toast = next(n for n in raised(app) if n.title == "Notifications")
                assert toast.severity == "warning" and "hunter2" not in toast.message
                app.review.jump_to(key)
                await pilot.press("a")
                await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
                await pilot.press("y")
                await settle(pilot, lambda: app.review.entries[key].state is HandoffState.APPROVED)
    finally:
        endpoint.close()
    assert capsys.readouterr().err == ""
    warnings.report()
    err = capsys.readouterr().err
    assert err.startswith("handoff-gate watch: --notify-url: 1 warning; the last: ")
    assert err.count("\n") == 1 and "json://alice:****@127.0.0.1" in err and "hunter2" not in err


async def test_a_new_handoff_is_inspected_once_for_the_screen_and_the_notification(
    root: Path,
    registry: Registry,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One watch of the store and one inspection per new handoff, in a process where both
    the review screen and the announcer want it (``Gate.events``)."""
    looks: list[str] = []
    look = EventSource.look

    def counted(source: EventSource, ref: HandoffRef, store: RunStore) -> Standing:
        looks.append(ref.id)
        return look(source, ref, store)

    monkeypatch.setattr(EventSource, "look", counted)
    endpoint = Endpoint()
    warnings = AppWarnings()
    app = review_app(root, registry, reviewer="alice", quiet=True)
    try:
        with announcing(app, targets([endpoint.url]), False, warnings):
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, app.ready.is_set, timeout=BOUND)
                handoff = put(root, "web", PLAN)
                key = (root / "web", handoff)
                await settle(pilot, lambda: not endpoint.received.empty(), timeout=BOUND)
                note = endpoint.next()
                await settle(
                    pilot,
                    lambda: (
                        key in app.review.entries and app.review.entries[key].report is not None
                    ),
                )
                watching = [t for t in threading.enumerate() if t.name == THREAD_NAME]
    finally:
        endpoint.close()
    assert note["title"] == f"1 new handoff in web: {handoff}"
    assert app.review.entries[key].state is HandoffState.PENDING
    assert looks.count(handoff) == 1
    assert len(watching) == 1
    assert not [t for t in threading.enumerate() if t.name == THREAD_NAME], "the watch ended"
    warnings.report()
    assert capsys.readouterr().err == ""


class Terminal:
    """The parent side of a pty, drained by a thread of its own so that the app never
    blocks on a full terminal while the test waits for something else."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = bytearray()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the child's side closed
                return
            if not chunk:
                return
            self.seen.extend(chunk)

    def until(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + BOUND
        while not done():
            assert time.monotonic() < deadline, "the terminal never showed it"
            time.sleep(0.02)

    def close(self) -> None:
        os.close(self.fd)
        self._thread.join(BOUND)


def test_the_watch_command_announces_to_its_notify_url(root: Path, registry: Registry) -> None:
    """The command itself, in a real terminal: the flag reaches the announcer."""
    endpoint = Endpoint()
    main, child = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "35"}
    command = [sys.executable, "-m", "handoff_gate.cli", "watch", str(root), "--quiet"]
    process = subprocess.Popen(
        [*command, "--notify-url", endpoint.url],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        close_fds=True,
    )
    os.close(child)
    terminal = Terminal(main)
    try:
        terminal.until(lambda: b"handoff-gate" in terminal.seen)
        handoff = put(root, "web", PLAN)
        note = endpoint.next()
        assert note["title"] in (
            f"1 new handoff in web: {handoff}",
            f"1 handoff waits for a decision in web: {handoff}",
        )
        os.write(main, b"q")
        assert process.wait(timeout=BOUND) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        terminal.close()
        endpoint.close()
    assert b"--notify-url" not in terminal.seen
