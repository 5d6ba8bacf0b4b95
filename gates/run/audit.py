"""The run's append-only audit log: one JSON object a line, hash-chained.

Each line carries ``prev``, the sha256 of the previous line's bytes (``GENESIS`` for
the first), so deleting, reordering or editing a line breaks the chain where it
happened. Appends from several processes are serialised with ``fcntl.flock`` so the
chain stays linear. Only bookkeeping goes in: ids, hashes, codes, actions, reviewers,
outcomes. Payload text and secrets never do.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

AUDIT_FILE = "audit.jsonl"
GENESIS = "0" * 64
_TAIL_CHUNK = 4096


class Event(StrEnum):
    """Every event name the log can hold; scripts match on them exactly."""

    HANDOFF_SUBMITTED = "handoff_submitted"
    DECISION_WRITTEN = "decision_written"
    DECISION_REFUSED = "decision_refused"
    WAIT_RETURNED = "wait_returned"


def now_iso() -> str:
    """The current UTC time, ISO-8601 with milliseconds and a ``Z`` suffix."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def _last_line(fd: int) -> bytes | None:
    """The last line of the file (without its newline), read backwards in chunks."""
    end = os.lseek(fd, 0, os.SEEK_END)
    if end == 0:
        return None
    tail = b""
    pos = end
    while pos > 0:
        step = min(_TAIL_CHUNK, pos)
        pos -= step
        tail = os.pread(fd, step, pos) + tail
        body = tail[:-1] if tail.endswith(b"\n") else tail
        cut = body.rfind(b"\n")
        if cut >= 0:
            return body[cut + 1 :]
    return tail[:-1] if tail.endswith(b"\n") else tail


def append(run_dir: Path, event: Event, **fields: Any) -> dict[str, Any]:
    """Append one event and return it as written.

    A torn last line (a writer killed mid-append) is closed with a newline first; it
    stays in the log and ``verify_chain`` reports it.
    """
    path = run_dir / AUDIT_FILE
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        last = _last_line(fd)
        prefix = b""
        if last is not None:
            size = os.lseek(fd, 0, os.SEEK_END)
            if os.pread(fd, 1, size - 1) != b"\n":
                prefix = b"\n"
        record = {"event": event.value, "at": now_iso(), **fields}
        record["prev"] = GENESIS if last is None else _line_hash(last)
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
        os.write(fd, prefix + line.encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return record


def _read_log(run_dir: Path) -> bytes:
    """The whole log (empty if there is none), refusing a symlink planted in its place."""
    try:
        fd = os.open(run_dir / AUDIT_FILE, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def read_events(run_dir: Path) -> list[dict[str, Any]]:
    """All parseable events in order; unparseable lines are skipped (see ``verify_chain``)."""
    events = []
    for raw in _read_log(run_dir).splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def verify_chain(run_dir: Path) -> list[str]:
    """Every break in the log as a readable problem; an empty list means intact."""
    problems: list[str] = []
    expected = GENESIS
    known = {e.value for e in Event}
    for number, raw in enumerate(_read_log(run_dir).splitlines(), start=1):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            problems.append(f"line {number}: not a JSON object")
        else:
            if value.get("prev") != expected:
                problems.append(f"line {number}: prev does not match the line before it")
            if value.get("event") not in known:
                problems.append(f"line {number}: unknown event {value.get('event')!r}")
        expected = _line_hash(raw)
    return problems
