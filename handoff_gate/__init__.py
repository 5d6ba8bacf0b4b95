"""handoff-gate: a fail-closed human-approval gate for JSON handoffs between pipeline phases.

Installing the distribution adds this one import name. Its parts keep the repository's
layout: ``handoff_gate.schemas`` (contracts), ``handoff_gate.gates`` (the UI-free core)
and ``handoff_gate.tui`` (the Textual app).
"""
