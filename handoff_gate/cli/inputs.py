"""Turning arguments into what the commands work on: payload bytes, and runs and
handoffs that must exist; each failure a ``UsageError`` worded once (here, or in
``errors``), so the same mistake reads the same in every command.
"""

from __future__ import annotations

import sys
from pathlib import Path

from handoff_gate.cli.errors import UsageError, one_line, os_problem
from handoff_gate.gates.store.base import RunStore, has_handoff
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible


def read_input(name: str) -> bytes:
    """A payload file's bytes, or stdin's for ``-``, capped at the handoff size limit."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_HANDOFF_BYTES + 1)
        if len(data) > MAX_HANDOFF_BYTES:
            raise UsageError(f"stdin is over the {MAX_HANDOFF_BYTES}-byte limit")
        return data
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{name} is a directory, not a file")
    from handoff_gate.gates.gate import Gate

    try:
        return Gate.read_file(path)
    except FileNotFoundError as exc:
        raise UsageError(f"no such file: {name}") from exc
    except OSError as exc:
        raise os_problem("read", name, exc) from exc


def created_run(run: str, where: RunStore, doing: str) -> None:
    """Make the run if it is missing (parent folders too, as ``mkdir -p``) and say so on
    stderr, once, with where it is: a typo in the path shows as a run nobody meant. A
    path that cannot be a run is a ``UsageError`` saying what ``doing`` could not do."""
    try:
        made = where.create(run)
    except PermissionError as exc:
        raise os_problem("create the run", visible(run), exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot {doing}: {one_line(exc)}") from exc
    if made:
        print(f"new run {visible(where.run_label(run))}", file=sys.stderr)


def existing_run(run: str, where: RunStore) -> str:
    """A run that must already exist: a run directory, or a run id in a database."""
    try:
        found = where.exists(run)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if not found:
        raise UsageError(f"not a run (nothing was ever submitted to it): {run}")
    return run


def existing_handoff(run: str, handoff_id: str, where: RunStore) -> str:
    """The run of a handoff that must already exist there."""
    existing_run(run, where)
    try:
        found = has_handoff(where, run, handoff_id)
    except (UnsafePathError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    if not found:
        raise UsageError(f"no handoff {handoff_id} in {run}")
    return run
