"""Turning arguments into what the commands work on: contracts, payload bytes, runs.

Every failure here is a ``UsageError`` worded by ``errors``, so the same mistake reads
the same in every command.
"""

from __future__ import annotations

import sys
from pathlib import Path

from handoff_gate.cli.errors import UsageError, no_handoff, not_a_run, os_problem
from handoff_gate.gates.contracts.registry import Registry, RegistryError, load_registry
from handoff_gate.gates.store.durable import read_bounded
from handoff_gate.gates.store.filesystem import handoff_path, is_run
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES


def registry(spec: str | None) -> Registry:
    """The built-in contracts plus ``--schemas`` (or the environment's default)."""
    try:
        return load_registry(spec)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc


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
    try:
        return read_bounded(path, MAX_HANDOFF_BYTES)
    except FileNotFoundError as exc:
        raise UsageError(f"no such file: {name}") from exc
    except OSError as exc:
        raise os_problem("read", name, exc) from exc


def existing_run(run_dir: str) -> Path:
    """A run directory that must already exist."""
    path = Path(run_dir)
    if not is_run(path):
        raise not_a_run(run_dir)
    return path


def existing_handoff(run_dir: str, handoff_id: str) -> Path:
    """The run of a handoff that must already exist there."""
    path = existing_run(run_dir)
    try:
        found = handoff_path(path, handoff_id).is_file()
    except UnsafePathError as exc:
        raise UsageError(str(exc)) from exc
    if not found:
        raise no_handoff(run_dir, handoff_id)
    return path
