"""The audit log as a stream of lines, read in bounded memory whatever its size.

Anyone who can write the run can write the log: a planted line of hundreds of megabytes
must not make a reader hold it. A line over :data:`MAX_LOG_LINE` is still hashed (the
chain after it is checked as ever) but its bytes are dropped, never parsed. Lines end at
``\\n`` only: the gate never writes a bare ``\\r``, so a log split differently was edited.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.log_chain import line_hash
from handoff_gate.gates.vocab.limits import MAX_LOG_LINE


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line (1-based ``number``) without its newline; ``raw`` is ``None`` over the cap."""

    number: int
    raw: bytes | None
    digest: str
    size: int


class _Pending:
    """The line being assembled: its bytes up to the cap, then only its hash."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.hasher: hashlib._Hash | None = None

    def add(self, piece: bytes) -> None:
        if self.hasher is None and self.size + len(piece) <= self.cap:
            self.parts.append(piece)
        else:
            if self.hasher is None:
                self.hasher = hashlib.sha256(b"".join(self.parts))
                self.parts = []
            self.hasher.update(piece)
        self.size += len(piece)

    def take(self, number: int) -> LogLine:
        if self.hasher is None:
            raw = b"".join(self.parts)
            line = LogLine(number, raw, line_hash(raw), self.size)
        else:
            line = LogLine(number, None, self.hasher.hexdigest(), self.size)
        self.parts, self.size, self.hasher = [], 0, None
        return line


def split_lines(chunks: Iterable[bytes], cap: int = MAX_LOG_LINE) -> Iterator[LogLine]:
    """A final line without its newline (a torn append) is a line too."""
    pending = _Pending(cap)
    number = 0
    for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if start < len(chunk):
                    pending.add(chunk[start:])
                break
            pending.add(chunk[start:end])
            number += 1
            yield pending.take(number)
            start = end + 1
    if pending.size:
        yield pending.take(number + 1)


def log_lines(store: RunStore, run: str, cap: int = MAX_LOG_LINE) -> Iterator[LogLine]:
    return split_lines(store.log_chunks(run), cap)


def last_line(store: RunStore, run: str) -> LogLine | None:
    """``None`` for an empty log. Only that line is hashed: a signed decision asks for the
    log's head each time, and hashing every line made a batch quadratic in the log."""
    return tail_line(store.log_chunks(run))


def tail_line(chunks: Iterable[bytes], cap: int = MAX_LOG_LINE) -> LogLine | None:
    """The last line :func:`split_lines` would cut."""
    pending, complete = _Pending(cap), _Pending(cap)
    number = 0
    for chunk in chunks:
        end = chunk.rfind(b"\n")
        if end < 0:
            pending.add(chunk)
            continue
        start = chunk.rfind(b"\n", 0, end) + 1
        if start:  # the chunk holds a whole line: what was pending is not the last one
            pending = _Pending(cap)
        pending.add(chunk[start:end])
        number += chunk.count(b"\n")
        complete, pending = pending, _Pending(cap)
        if end + 1 < len(chunk):
            pending.add(chunk[end + 1 :])
    if pending.size:
        return pending.take(number + 1)
    return complete.take(number) if number else None
