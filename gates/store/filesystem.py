"""A run directory on disk: where its handoffs, decisions and audit log live.

Layout (documented in docs/protocol.md)::

    RUN_DIR/handoffs/0003-plan.json    one envelope per handoff, never rewritten
    RUN_DIR/handoffs/.seq/0003         sequence reservations (empty marker files)
    RUN_DIR/decisions/0003-plan.json   at most one decision per handoff
    RUN_DIR/audit.jsonl                hash-chained event log

A directory is a run when it has a ``handoffs/`` folder. Every name read from disk or
from an argument is checked against the id pattern and must resolve inside the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from handoff_gate.gates.store.durable import inside, read_bounded
from handoff_gate.gates.vocab.ids import ID_PATTERN, validate_id
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

HANDOFFS = "handoffs"
DECISIONS = "decisions"
SEQ = ".seq"


@dataclass(frozen=True, slots=True)
class HandoffRef:
    """Where one handoff lives; cheap to build from a file name, without reading it."""

    run_dir: Path
    id: str
    seq: int
    phase: str
    path: Path


def is_run(path: Path) -> bool:
    return (path / HANDOFFS).is_dir()


def find_runs(root: Path) -> list[Path]:
    """``root`` itself if it is a run, else its child runs sorted by name."""
    if is_run(root):
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if not p.is_symlink() and is_run(p))


def ref_of(run_dir: Path, handoff_id: str) -> HandoffRef:
    validate_id(handoff_id)
    seq, phase = handoff_id.split("-", 1)
    return HandoffRef(run_dir, handoff_id, int(seq), phase, handoff_path(run_dir, handoff_id))


def handoff_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, HANDOFFS, f"{validate_id(handoff_id)}.json")


def decision_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, DECISIONS, f"{validate_id(handoff_id)}.json")


def list_handoffs(run_dir: Path) -> list[HandoffRef]:
    """Handoffs ordered by sequence number; temp files, symlinks and junk names skipped.

    One ``scandir`` and the folder's own path check: an entry that is a regular file
    (not a symlink) with a valid id for a name cannot lead out of the run, so it needs
    no check of its own (a run is re-listed on every change, at 10,000 handoffs too).
    """
    folder = run_dir / HANDOFFS
    if not folder.is_dir():
        return []
    refs: list[HandoffRef] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            stem = entry.name.removesuffix(".json")
            if stem == entry.name or not ID_PATTERN.match(stem):
                continue
            if entry.is_file(follow_symlinks=False):
                if not refs:
                    inside(run_dir, HANDOFFS)
                seq, phase = stem.split("-", 1)
                refs.append(HandoffRef(run_dir, stem, int(seq), phase, folder / entry.name))
    return sorted(refs, key=lambda r: (r.seq, r.id))


def read_handoff_bytes(run_dir: Path, handoff_id: str, max_bytes: int = MAX_HANDOFF_BYTES) -> bytes:
    """The exact bytes of a handoff file, refusing symlinks and files over ``max_bytes``."""
    return read_bounded(handoff_path(run_dir, handoff_id), max_bytes)
