"""The pipeline's withdrawals in a run directory: ``withdrawals/{handoff}``.

A withdrawal is the producer's act, so it lives where the pipeline's account writes:
in the layout ``handoff-gate init`` makes, ``decisions/`` is the reviewers' alone and a
withdrawal written there would be refused. ``withdrawals/`` is the pipeline's folder,
like ``handoffs/``; each record is published exclusively (a link, never a replace) and
read without following links, bounded. The previous version wrote
``decisions/{handoff}/withdrawn``; that place is still read, so its runs stay withdrawn.

Whatever sits in a record's place and cannot be read as one (a FIFO, a symlink, a
directory, a file over the cap, a folder swapped for a link out of the run) reads as an
empty record, which ``standing.ending`` takes for a withdrawal it cannot read: the handoff is
withdrawn, never approvable, and every listing still shows it.
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
    """Where the pipeline's withdrawal of a handoff is written."""
    return inside(run_dir, WITHDRAWALS, validate_id(handoff_id))


def legacy_path(run_dir: Path, handoff_id: str) -> Path:
    """Where the previous version wrote it, beside the handoff's signed decisions."""
    return inside(run_dir, DECISIONS, validate_id(handoff_id), LEGACY_NAME)


def publish(run_dir: Path, handoff_id: str, data: bytes) -> None:
    """Create the record exclusively (``FileExistsError`` when anything holds its place),
    the folder made on demand when ``init`` did not make it."""
    target = withdrawal_path(run_dir, handoff_id)
    target.parent.mkdir(exist_ok=True)
    exclusive_create(target, data)


def read(run_dir: Path, handoff_id: str) -> bytes | None:
    """The withdrawal record, from either place (one anywhere counts); ``None`` when
    neither holds anything, empty bytes when something there is not a record."""
    for where in (withdrawal_path, legacy_path):
        try:
            return read_bounded(where(run_dir, handoff_id), MAX_DECISION_BYTES)
        except (FileNotFoundError, NotADirectoryError):  # nothing, or junk as the folder
            continue
        except (OSError, ValueError):  # a FIFO, link, directory, oversize, path out of run
            return b""
    return None
