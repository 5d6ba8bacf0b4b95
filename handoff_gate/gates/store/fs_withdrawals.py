"""The pipeline's withdrawals in a run directory: ``withdrawals/{handoff}``.

A withdrawal is the producer's act, so it lives where the pipeline's account writes (in
``init``'s layout ``decisions/`` is the reviewers' alone). The previous version's
``decisions/{handoff}/withdrawn`` is still read, so its runs stay withdrawn. Whatever
sits in a record's place and cannot be read as one reads as an empty record: withdrawn,
never approvable.
"""

from __future__ import annotations

from pathlib import Path

from handoff_gate.gates.store.durable import exclusive_create, inside, read_bounded
from handoff_gate.gates.store.fs_listing import DECISIONS, WITHDRAWALS
from handoff_gate.gates.vocab.ids import validate_id
from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES

#: The name of the previous version's record inside ``decisions/{handoff}/``.
LEGACY_NAME = "withdrawn"


def withdrawal_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, WITHDRAWALS, validate_id(handoff_id))


def legacy_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, DECISIONS, validate_id(handoff_id), LEGACY_NAME)


def publish(run_dir: Path, handoff_id: str, data: bytes) -> None:
    target = withdrawal_path(run_dir, handoff_id)
    target.parent.mkdir(exist_ok=True)
    exclusive_create(target, data)


def read(run_dir: Path, handoff_id: str) -> bytes | None:
    """From either place; ``None`` when neither holds anything."""
    for where in (withdrawal_path, legacy_path):
        try:
            return read_bounded(where(run_dir, handoff_id), MAX_DECISION_BYTES)
        except (FileNotFoundError, NotADirectoryError):  # nothing, or junk as the folder
            continue
        except (OSError, ValueError):  # a FIFO, link, directory, oversize, path out of run
            return b""
    return None
