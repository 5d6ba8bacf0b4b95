"""The audit log as a stream of lines, read in bounded memory whatever its size.

A run's log is written by the gate, but anyone who can write the run can also write the
log: a single line of hundreds of megabytes (a sparse file, say) must not make a reader
hold it. So readers never take the log whole: the store hands out its bytes in pieces
(``RunStore.log_chunks``), and :func:`split_lines` cuts them at ``\\n`` into
:class:`LogLine` values, keeping the bytes of a line only up to :data:`MAX_LOG_LINE`.
A longer line is still hashed (the chain after it is checked as ever) but its bytes are
dropped: it is reported as over the limit, never parsed.

Lines end at ``\\n`` only, as the appender reads them back: the gate never writes a bare
``\\r`` (its JSON escapes it), so a log whose lines split differently was edited.
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
    """One line of the log (1-based ``number``), without its newline.

    ``raw`` is ``None`` for a line over the cap: only its ``size`` and ``digest`` (the
    sha256 the next line's ``prev`` names) are known.
    """

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
    """The lines of the bytes ``chunks`` yield, cut at ``\\n``; a final line without its
    newline (a torn append) is a line too, an empty tail is none."""
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
    """The lines of ``run``'s log, streamed from the store's pieces."""
    return split_lines(store.log_chunks(run), cap)


def last_line(store: RunStore, run: str) -> LogLine | None:
    """The log's last line, read in bounded memory; ``None`` for an empty log.

    The same line :func:`split_lines` ends with, but only that line is assembled and
    hashed: a signed decision asks for the log's head each time, and hashing every line
    of a run's log per decision made a batch of 100 quadratic in the log's length.
    """
    return tail_line(store.log_chunks(run))


def tail_line(chunks: Iterable[bytes], cap: int = MAX_LOG_LINE) -> LogLine | None:
    """The last line of the bytes ``chunks`` yield, as :func:`split_lines` would cut it."""
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
