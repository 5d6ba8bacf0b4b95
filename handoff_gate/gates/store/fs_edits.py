"""A reviewer's edited payloads in a run directory: ``edits/{handoff}/{sha256}.json``.

An approval names the edited bytes by their sha256, so the file is named by it too,
never replaced and checked against its name whenever read: a file swapped afterwards is
an error, never a delivery. It sits beside ``decisions/`` so that decision listings,
stamps and watches read only decision records.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from handoff_gate.gates.store.durable import exclusive_create, inside, read_bounded
from handoff_gate.gates.store.fs_listing import HANDOFFS
from handoff_gate.gates.vocab.ids import validate_id

EDITS = "edits"


class EditMismatch(OSError):
    """An edit file whose bytes do not hash to its name: altered after it was written."""


def edit_path(run_dir: Path, handoff_id: str, sha256: str) -> Path:
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256: {sha256!r}")
    return inside(run_dir, EDITS, validate_id(handoff_id), f"{sha256}.json")


def create_edit(run_dir: Path, handoff_id: str, data: bytes) -> str:
    """``FileNotFoundError`` when the run has no such handoff, as the database's key."""
    if not inside(run_dir, HANDOFFS, f"{validate_id(handoff_id)}.json").is_file():
        raise FileNotFoundError(f"no handoff {handoff_id} in {run_dir}")
    digest = hashlib.sha256(data).hexdigest()
    target = edit_path(run_dir, handoff_id, digest)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        exclusive_create(target, data)
    except FileExistsError:
        read_edit(run_dir, handoff_id, digest, len(data))  # the same bytes, or EditMismatch
    return digest


def read_edit(run_dir: Path, handoff_id: str, sha256: str, max_bytes: int) -> bytes:
    data = read_bounded(edit_path(run_dir, handoff_id, sha256), max_bytes)
    if hashlib.sha256(data).hexdigest() != sha256:
        raise EditMismatch(f"the edit {sha256[:12]} of {handoff_id} was altered after it was kept")
    return data
