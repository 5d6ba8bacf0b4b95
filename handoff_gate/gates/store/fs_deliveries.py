"""The pipeline's deliveries in a run directory: ``deliveries/{handoff}``.

An approved tool call runs once: the wait that hands it to the pipeline first creates
this record, exclusively (``O_EXCL``, never a replace), so of two waits racing on one
approval exactly one gets it and the other is told it was delivered already. It lives
where the pipeline's account writes (``init`` makes ``deliveries/`` the pipeline's, like
``withdrawals/``); the folder is made on demand in a run ``init`` did not make.

Whatever sits in a record's place and cannot be read as one (a FIFO, a link, a folder, a
file over the cap) reads as an empty record: the approval counts as delivered, so
nothing runs on it again without the caller asking to deliver again.
"""

from __future__ import annotations

import os
from pathlib import Path

from handoff_gate.gates.store.durable import fsync_dir, inside, read_bounded
from handoff_gate.gates.vocab.ids import UnsafePathError, validate_id
from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES

DELIVERIES = "deliveries"


def delivery_path(run_dir: Path, handoff_id: str) -> Path:
    """Where the record of a handoff's delivery is written."""
    return inside(run_dir, DELIVERIES, validate_id(handoff_id))


def publish(run_dir: Path, handoff_id: str, data: bytes) -> None:
    """Create the record exclusively (``FileExistsError`` when anything holds its place,
    a link included), then write it. Unlike a decision it is created in place, not
    linked from a temporary file: it sits on every tool call's delivery, and one killed
    between the create and the write leaves an empty record, which reads as delivered
    (fail closed). Only the folder is synced, so the claim outlives a crash as its
    logged event does; its few bytes, if a crash loses them, read the same way."""
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
    """The delivery record; ``None`` when there is none, empty bytes when something in
    its place is not a record."""
    try:
        return read_bounded(delivery_path(run_dir, handoff_id), MAX_DECISION_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return b""
