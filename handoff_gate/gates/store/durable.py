"""Crash-safe file writes and path safety for the run directory.

Readers must never see a torn file, and two writers of a decision must never both win:
every write goes to a fsynced dot-named temp file beside its target (listings skip it),
then is published atomically, by ``os.replace`` or by ``os.link``, which fails when the
target exists, so the first writer wins.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from handoff_gate.gates.vocab.ids import UnsafePathError


def inside(root: Path, *parts: str) -> Path:
    """``root/parts`` after checking that it resolves (symlinks followed) inside ``root``;
    unresolved, so messages name what the user knows."""
    candidate = root.joinpath(*parts)
    if _plain_and_unlinked(root, parts):
        return candidate
    real_root = root.resolve()
    real = candidate.resolve()
    if real != real_root and real_root not in real.parents:
        raise UnsafePathError(f"{candidate} resolves outside the run directory {root}")
    return candidate


def _plain_and_unlinked(root: Path, parts: tuple[str, ...]) -> bool:
    """Whether every part is a plain name and no symlink (``lstat`` each): the common case
    for a few system calls, where resolving costs two ``realpath``s for every handoff a
    listing touches. Anything else is left to the full resolve check."""
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
    """Create ``path`` complete or not at all; ``FileExistsError`` if it exists."""
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
    """Read at most ``max_bytes`` from a regular file; ``OversizeError`` beyond, even for
    a file that grows meanwhile. Reads ask for the size ``fstat`` reported plus one, not
    the cap: a read of ``max_bytes`` allocates the whole cap first."""
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
