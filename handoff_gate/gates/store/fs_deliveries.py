"""The pipeline's deliveries in a run directory: ``deliveries/{handoff}``.

An approved tool call runs once: of two waits racing to deliver one approval exactly one
creates this record. Whatever sits in its place and cannot be read as one reads as an
empty record: delivered, so nothing runs on it again unless asked.
"""

from __future__ import annotations

import os
from pathlib import Path

from handoff_gate.gates.store.durable import fsync_dir, inside, read_bounded
from handoff_gate.gates.vocab.ids import UnsafePathError, validate_id
from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES

DELIVERIES = "deliveries"


def delivery_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, DELIVERIES, validate_id(handoff_id))


def publish(run_dir: Path, handoff_id: str, data: bytes) -> None:
    """Created in place (``O_EXCL``), not linked from a temp file: it sits on every tool
    call's delivery, and one killed before the write leaves an empty record, which reads
    as delivered (fail closed). Only the folder is synced, for the same reason."""
    validate_id(handoff_id)
    try:
        target = delivery_path(run_dir, handoff_id)
    except UnsafePathError as exc:  # a link in the record's place: it is taken
        raise FileExistsError(f"{handoff_id}: its delivery's place is taken ({exc})") from exc
    target.parent.mkdir(exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    fsync_dir(target.parent)


def read(run_dir: Path, handoff_id: str) -> bytes | None:
    try:
        return read_bounded(delivery_path(run_dir, handoff_id), MAX_DECISION_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return b""
