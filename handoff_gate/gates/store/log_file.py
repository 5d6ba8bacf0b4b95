"""The run directory's ``audit.jsonl`` as a file the pipeline's account may have planted.

Every open refuses to follow a symlink or to block (a FIFO would wait for a writer
forever) and insists on a regular file, so anything planted fails at once with one line.
The lock is retried up to :func:`lock_timeout`, so a process that keeps the ``flock``
cannot hang a writer.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from handoff_gate.gates.store.base import StoreError
from handoff_gate.gates.store.lock_bound import gave_up, lock_timeout
from handoff_gate.gates.vocab.limits import MAX_LOG_LINE

CHUNK = 64 * 1024
#: The first read back from the log's end: a line the gate writes fits in it many times;
#: each further read doubles, up to the line cap.
TAIL_STEP = 4096
#: Longest pause between two tries of a held lock (the first pause is far shorter).
_MAX_PAUSE = 0.02


class AuditLogUnusable(StoreError, OSError):
    """``audit.jsonl`` is not a regular file (a FIFO, a symlink, a directory...)."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_log(path: Path, flags: int, mode: int = 0o644) -> int:
    """``AuditLogUnusable`` for anything but a regular file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AuditLogUnusable(f"the audit log {path} is a symbolic link") from None
        if exc.errno in (errno.EISDIR, errno.ENXIO):
            what = "a directory" if exc.errno == errno.EISDIR else "not a regular file"
            raise AuditLogUnusable(f"the audit log {path} is {what}") from None
        raise
    try:
        found = os.fstat(fd).st_mode
        if not stat.S_ISREG(found):
            raise AuditLogUnusable(f"the audit log {path} is {_kind(found)}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _holder(fd: int) -> str:
    """`` (held by pid N)`` from ``/proc/locks`` when the kernel names one, else ``""``."""
    st = os.fstat(fd)
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        for line in Path("/proc/locks").read_text(encoding="ascii").splitlines():
            fields = line.split()
            if len(fields) > 5 and fields[1:2] == ["FLOCK"] and fields[5] == device:
                return f" (held by pid {fields[4]})" if fields[4].isdigit() else ""
    return ""


def lock(fd: int, path: Path) -> None:
    bound = lock_timeout()
    deadline = time.monotonic() + bound
    pause = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        left = deadline - time.monotonic()
        if left <= 0:
            raise gave_up(f"the audit log {path} is locked by another process{_holder(fd)}", bound)
        time.sleep(min(pause, left))
        pause = min(pause * 2, _MAX_PAUSE)


def last_line(fd: int, end: int) -> bytes | None:
    """The last line of the first ``end`` bytes, read backwards; ``None`` for an empty
    file or a line over :data:`MAX_LOG_LINE` (no record to chain to), so one planted line
    cannot make every append as slow as it is long."""
    if end == 0:
        return None
    pos, parts, size = end, [], 0
    step, first = TAIL_STEP, True
    while pos > 0 and size <= MAX_LOG_LINE + 1:
        want = min(step, pos, MAX_LOG_LINE + 2 - size)
        pos -= want
        chunk = os.pread(fd, want, pos)
        if first and chunk.endswith(b"\n"):
            chunk = chunk[:-1]
        first = False
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            parts.append(chunk[cut + 1 :])
            return _joined(parts)
        parts.append(chunk)
        size += len(chunk)
        step *= 2
    return _joined(parts) if pos == 0 and size <= MAX_LOG_LINE else None


def _joined(parts: list[bytes]) -> bytes | None:
    line = b"".join(reversed(parts))
    return line if len(line) <= MAX_LOG_LINE else None


def chunks(path: Path) -> Iterator[bytes]:
    try:
        fd = open_log(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        while chunk := os.read(fd, CHUNK):
            yield chunk
    finally:
        os.close(fd)
