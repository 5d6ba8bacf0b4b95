"""The simulated pipeline's progress, shown in the app while the demo runs.

The simulator writes one line per event to its log (the terminal belongs to the TUI); a
background thread follows that log and raises each line as a notification, so the person
at the app sees "0002-design: submitted, waiting for a decision" and "pipeline finished"
where they are looking. Lines are shown as plain text, never markup.
"""

from __future__ import annotations

import threading
from pathlib import Path

from textual.app import App

from handoff_gate.gates.vocab.safe_text import elide, visible

#: The simulator's own lines carry this prefix; anything else in the log (a traceback,
#: a library warning) stays in the log.
PREFIX = "simulator: "
#: How often the log is looked at for new lines.
POLL_SECONDS = 0.2


class ProgressToasts:
    """Follows ``log`` from its current end and notifies ``app`` of each simulator line."""

    def __init__(self, app: App[int], log: Path) -> None:
        self._app = app
        self._log = log
        self._stop = threading.Event()
        self._offset = log.stat().st_size if log.exists() else 0
        self._thread = threading.Thread(target=self._follow, name="demo-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * POLL_SECONDS)

    def _follow(self) -> None:
        pending = b""
        while not self._stop.wait(POLL_SECONDS):
            try:
                with self._log.open("rb") as handle:
                    handle.seek(self._offset)
                    chunk = handle.read()
            except OSError:
                continue
            self._offset += len(chunk)
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._show(line.decode("utf-8", "replace"))

    def _show(self, line: str) -> None:
        if not line.startswith(PREFIX):
            return
        text = elide(visible(line.removeprefix(PREFIX)), 200)
        finished = text.startswith("pipeline finished")
        try:
            self._app.call_from_thread(
                self._app.notify,
                text,
                title="Pipeline finished" if finished else "Pipeline",
                timeout=10 if finished else 5,
                markup=False,
            )
        except RuntimeError:  # the app is not running (any more)
            self._stop.set()
