"""How a wait says an ignored decision record by default: one line on stderr.

Its own module so that the ``Gate``'s wait methods can name it as their default without
loading the waiting code for a command that never waits."""

from __future__ import annotations

import sys


def print_refusal(line: str) -> None:
    """The default for ``on_refused``: an ignored decision record is said on stderr."""
    print(f"handoff-gate: {line}", file=sys.stderr)
