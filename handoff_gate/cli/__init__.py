"""The ``handoff-gate`` command; ``cli.main`` is its composition root."""

from handoff_gate.cli.main import console_main, main

__all__ = ["console_main", "main"]
