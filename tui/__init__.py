"""The approval TUI (``handoff-gate watch``): Textual screens over ``gates``, never a copy of it."""

import os

# One import identity: reached as ``tui`` (a checkout's top-level folder on sys.path),
# every class would exist twice and isinstance checks would fail between the two.
if __name__ != "handoff_gate.tui":
    raise ImportError(f"import handoff_gate.tui, not {__name__}")

# Textual paints a changed screen on a fixed timer of 1/TEXTUAL_FPS, read once when it is
# imported; at its default of 60 a new handoff's row waits up to 16.7 ms for the next
# frame. 120 halves that wait (bench, quick runs: visible.isolated p95 13-14 ms instead of
# 14-23 ms, a detail's first screen 4 ms instead of 12 ms) for a few per cent more CPU
# while 10,000 handoffs load. Set here, before any tui module imports textual, so every
# entry point (watch, demo, the bench) gets it; a user's own setting wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
