"""Which extra contract modules a user names: ``--schemas SPEC`` or ``$HANDOFF_GATE_SCHEMAS``.

A SPEC is a ``.py`` file path or an importable module name exposing ``SCHEMAS``;
several specs are joined with ``os.pathsep``. This module reads the names only and
imports no contract, so a front end can tell whether extra contracts were named (and
report a bad one before anything else) without loading the built-ins.
"""

from __future__ import annotations

import os

from handoff_gate.gates.vocab.environment import Environment


def named_specs(spec: str | None = None) -> list[str]:
    """The specs in ``spec`` (default: ``$HANDOFF_GATE_SCHEMAS``), blanks dropped."""
    if spec is None:
        spec = Environment.read().schemas
    return [p.strip() for p in spec.split(os.pathsep) if p.strip()]
