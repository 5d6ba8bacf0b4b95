"""The ``handoff-gate`` console script (and ``python -m handoff_gate``).

A coding agent's hook runs once per tool call, so a call a policy ``[[auto]]`` rule
approves is answered by ``integrations.hook_fast`` before the command line (the
argument parser, the Gate, pydantic) is imported. Everything else, and every call that
path does not answer, runs ``cli.main.console_main``. This module sits outside the
``cli`` package so that importing it does not load ``cli/__init__.py``.
"""

from __future__ import annotations

import sys


def console_main() -> int:
    """The hook's fast path when it answers, else the full command."""
    words = sys.argv[1:]
    if words[:1] == ["hook"]:
        from handoff_gate.integrations.hook_fast import answered

        code = answered(words)
        if code is not None:
            return code
    from handoff_gate.cli.main import console_main as full

    return full()
