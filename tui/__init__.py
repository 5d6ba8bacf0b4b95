"""The approval TUI (``handoff-gate watch``): Textual screens over ``gates``, never a copy of it."""
