"""The approval TUI (``handoff-gate watch``): Textual screens over ``gates``, never a copy of it."""

# One import identity: reached as ``tui`` (a checkout's top-level folder on sys.path),
# every class would exist twice and isinstance checks would fail between the two.
if __name__ != "handoff_gate.tui":
    raise ImportError(f"import handoff_gate.tui, not {__name__}")
