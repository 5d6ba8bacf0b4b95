"""The frame rate of the terminal UI, asked for by the commands that open it.

Textual paints a changed screen every 1/``TEXTUAL_FPS`` s, read when it is imported; 120
instead of its 60 halves a new row's wait for the next frame (bench: visible.isolated p95
13-14 ms instead of 14-23 ms) for a few per cent more CPU. Asked for only before the
``watch`` or ``demo`` command is imported; a user's own setting wins.
"""

from __future__ import annotations

import os

#: Frames per second the app's commands ask Textual for.
TUI_FPS = "120"


def prefer_tui_frame_rate() -> None:
    """Ask for ``TUI_FPS`` unless the user set ``TEXTUAL_FPS``; call before importing textual."""
    os.environ.setdefault("TEXTUAL_FPS", TUI_FPS)
