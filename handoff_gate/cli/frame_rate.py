"""The frame rate of the terminal UI, asked for by the commands that open it.

Textual paints a changed screen on a fixed timer of 1/``TEXTUAL_FPS``, read once when it
is imported; at its default of 60 a new handoff's row waits up to 16.7 ms for the next
frame. 120 halves that wait (bench, quick runs: visible.isolated p95 13-14 ms instead of
14-23 ms, a detail's first screen 4 ms instead of 12 ms) for a few per cent more CPU
while 10,000 handoffs load. ``cli.main`` calls ``prefer_tui_frame_rate`` before it imports
the ``watch`` or ``demo`` command, and with it the app, so importing ``handoff_gate.tui``
changes nothing in a process; a user's own setting wins.
"""

from __future__ import annotations

import os

#: Frames per second the app's commands ask Textual for.
TUI_FPS = "120"


def prefer_tui_frame_rate() -> None:
    """Ask for ``TUI_FPS`` unless the user set ``TEXTUAL_FPS``; call before importing textual."""
    os.environ.setdefault("TEXTUAL_FPS", TUI_FPS)
