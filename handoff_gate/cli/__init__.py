"""The ``handoff-gate`` command; ``cli.main`` is its composition root."""

from handoff_gate.cli.main import main

__all__ = ["main"]
