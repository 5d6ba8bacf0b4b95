"""Crash-safe file writes and path safety for the run directory.

Readers must never see a torn file, and two writers of a decision must never both
win. Every write therefore goes to a dot-named temp file in the same directory (so
listings skip it and the final step stays on one filesystem), is fsynced, and is
then published in one atomic step: ``os.replace`` to overwrite, ``os.link`` to create
exclusively (``link`` fails when the target exists, which makes the first writer win).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from handoff_gate.gates.vocab.ids import UnsafePathError


def inside(root: Path, *parts: str) -> Path:
    """``root/parts`` after checking that it resolves (symlinks followed) inside ``root``.

    The returned path is the unresolved one, so messages name what the user knows.
    """
    candidate = root.joinpath(*parts)
    if _plain_and_unlinked(root, parts):
        return candidate
    real_root = root.resolve()
    real = candidate.resolve()
    if real != real_root and real_root not in real.parents:
        raise UnsafePathError(f"{candidate} resolves outside the run directory {root}")
    return candidate


def _plain_and_unlinked(root: Path, parts: tuple[str, ...]) -> bool:
    """Whether ``root/parts`` stays inside ``root`` without resolving anything: every part
    is one plain name and none of them is a symlink on disk (``lstat``, one call each).

    Resolving costs a ``realpath`` of the whole path, twice, and runs for every handoff a
    listing or a watcher touches; this answers the common case for a few system calls.
    Anything else (a symlink, an odd name, an error) is left to the full resolve check.
    """
    for part in parts:
        if part in ("", ".", "..") or "/" in part or "\0" in part:
            return False
    path = os.fspath(root)
    for part in parts:
        path = f"{path}{os.sep}{part}"
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return True  # nothing below a missing name exists, links included
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return False
    return True


def fsync_dir(directory: Path) -> None:
    """Make a rename or link in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(final: Path, data: bytes) -> Path:
    # os.urandom, as secrets reads it, without importing secrets (hmac, random) into the hook
    tmp = final.with_name(f".{final.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return tmp


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, whole."""
    tmp = _write_temp(path, data)
    try:
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def exclusive_create(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``; raise ``FileExistsError`` if it already exists.

    The file appears complete or not at all, even if the process is killed midway
    (a stray dot-named temp file may remain; listings ignore it).
    """
    tmp = _write_temp(path, data)
    try:
        os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def reserve(path: Path) -> bool:
    """Atomically create an empty marker file; ``False`` if another process has it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """Read at most ``max_bytes`` from a regular file; raise ``OversizeError`` beyond.

    The size is checked before reading, and the read is capped, so a file that grows
    meanwhile cannot make us load more than the cap. Reads ask for the size ``fstat``
    reported (plus one byte, to see growth) rather than the cap: a buffered read of
    ``max_bytes`` allocates the whole cap first, which tripled the cost of a small file.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        if st.st_size > max_bytes:
            raise OversizeError(st.st_size, max_bytes)
        parts: list[bytes] = []
        size = 0
        while size <= max_bytes:
            want = min(max(st.st_size + 1 - size, 1 << 16), max_bytes + 1 - size)
            chunk = os.read(fd, want)
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise OversizeError(size, max_bytes)
    return b"".join(parts)


class OversizeError(OSError):
    """A file is larger than the cap the caller allows."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"file is {size} bytes, over the {limit}-byte limit")
        self.size = size
        self.limit = limit
