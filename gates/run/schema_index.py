"""Which handoffs of a run carry which contract, so append-only checks need not read them all.

An append-only check compares a handoff with the latest earlier handoff of a related
contract. Finding it by reading every earlier envelope costs seconds in a run of 100k
handoffs; instead ``submit`` appends each id to a small per-contract file,
``handoffs/.index/<sha256 of the schema id>``, and the lookup reads only those files.

The entry is written *before* the handoff is published, so a crash or a lost race for a
sequence number leaves an entry naming a handoff that does not exist (or that another
submitter published under that id); readers therefore check every envelope they read,
and an extra entry costs one read, never a wrong answer. A missing entry would be a
wrong answer, so the index is trusted only in runs that had it from their first
handoff (older runs are read the slow way).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from handoff_gate.gates.store.durable import inside, read_bounded
from handoff_gate.gates.store.filesystem import HANDOFFS, list_handoffs
from handoff_gate.gates.vocab.ids import ID_PATTERN

INDEX = ".index"
#: Largest index file read (about 800k ids); beyond it, the slow way.
_MAX_INDEX_BYTES = 16 * 1024 * 1024


def _file(run_dir: Path, schema_id: str) -> Path:
    return inside(run_dir, HANDOFFS, INDEX, hashlib.sha256(schema_id.encode()).hexdigest())


def start(run_dir: Path) -> bool:
    """Whether the run keeps an index: created now when it has no handoff yet."""
    folder = run_dir / HANDOFFS / INDEX
    if folder.is_dir():
        return True
    if not (run_dir / HANDOFFS).is_dir() or not list_handoffs(run_dir):
        folder.mkdir(parents=True, exist_ok=True)
        return True
    return False


def note(run_dir: Path, schema_id: str, handoff_id: str) -> None:
    """Record that ``handoff_id`` carries ``schema_id`` (one short ``O_APPEND`` write)."""
    fd = os.open(_file(run_dir, schema_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{handoff_id}\n".encode("ascii"))
    finally:
        os.close(fd)


def ids_for(run_dir: Path, schema_ids: Iterable[str]) -> list[str] | None:
    """Every indexed id of these contracts, latest first; ``None`` without an index."""
    if not (run_dir / HANDOFFS / INDEX).is_dir():
        return None
    found: set[str] = set()
    for schema_id in schema_ids:
        try:
            data = read_bounded(_file(run_dir, schema_id), _MAX_INDEX_BYTES)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        found.update(
            line for line in data.decode("ascii", "replace").split("\n") if ID_PATTERN.match(line)
        )
    return sorted(found, key=lambda i: (int(i.split("-", 1)[0]), i), reverse=True)
