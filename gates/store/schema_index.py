"""Which handoffs of a run carry which contract, so append-only checks need not read them all.

An append-only check compares a handoff with the latest earlier handoff of a related
contract. Finding it by reading every earlier envelope costs seconds in a run of 100k
handoffs; instead the filesystem store appends each id it publishes to a small per-contract file,
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
import heapq
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from handoff_gate.gates.store.durable import inside
from handoff_gate.gates.vocab.ids import ID_PATTERN

#: The run's handoffs folder, which holds the index (``filesystem.HANDOFFS``).
HANDOFFS = "handoffs"

INDEX = ".index"
#: How much of an index file is read at a time, from its end (about 70 ids): the id a
#: lookup wants is nearly always among the last few, and each chunk is sorted.
_CHUNK = 1024


def _file(run_dir: Path, schema_id: str) -> Path:
    return inside(run_dir, HANDOFFS, INDEX, hashlib.sha256(schema_id.encode()).hexdigest())


def start(run_dir: Path, *, empty: bool) -> bool:
    """Whether the run keeps an index: created now when it has no handoff yet (``empty``)."""
    folder = run_dir / HANDOFFS / INDEX
    if folder.is_dir():
        return True
    if empty:
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


def ids_for(run_dir: Path, schema_ids: Iterable[str]) -> Iterator[str] | None:
    """The indexed ids of these contracts, latest first, read lazily from the end of each
    index file; ``None`` without an index.

    The caller stops at the first id it can use, which is almost always among the last
    few entries, so a lookup reads one small chunk however long the run is. Entries are
    appended in the order sequence numbers were claimed, give or take submitters racing
    each other; each chunk is sorted before it is handed out, which puts such neighbours
    back in order.
    """
    if not (run_dir / HANDOFFS / INDEX).is_dir():
        return None
    streams = []
    for schema_id in schema_ids:
        try:
            fd = os.open(_file(run_dir, schema_id), os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        streams.append(_backwards(fd))
    return _unique(heapq.merge(*streams, key=_newest_first))


def _newest_first(handoff_id: str) -> tuple[int, str]:
    seq, _, phase = handoff_id.partition("-")
    return -int(seq), phase


def _backwards(fd: int) -> Iterator[str]:
    """The ids of one index file, newest first, a chunk at a time; closes ``fd``."""
    try:
        end = os.lseek(fd, 0, os.SEEK_END)
        carry = b""
        while end > 0:
            start = max(0, end - _CHUNK)
            data = os.pread(fd, end - start, start) + carry
            end = start
            lines = data.split(b"\n")
            carry = lines.pop(0) if start > 0 else b""
            ids = [line.decode("ascii", "replace") for line in lines]
            yield from sorted(filter(ID_PATTERN.match, ids), key=_newest_first)
    finally:
        os.close(fd)


def _unique(ids: Iterator[str]) -> Iterator[str]:
    """Each id once (a retried submit may have noted it twice)."""
    seen: set[str] = set()
    for handoff_id in ids:
        if handoff_id not in seen:
            seen.add(handoff_id)
            yield handoff_id
