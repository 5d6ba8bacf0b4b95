"""``wait --out FILE``: checked before waiting, written only as a regular file, in the
folder that was checked.

The target is refused up front (exit 2, nothing decided yet) when its folder is missing
or not writable, or when it is a symlink or an existing non-regular file (``/dev/null``,
a FIFO): the approved payload is written by an atomic rename, which would replace such
an entry rather than write through it. An existing file keeps its permission bits.

A wait may block for hours while the agent it gates has a shell in the same folders, so
nothing is done through a path after the check: the folder is resolved once and opened
(``O_DIRECTORY | O_NOFOLLOW``) when the wait starts, and the temporary file is created,
written, given its mode (``fchmod`` on its descriptor) and renamed relative to that open
folder. A folder swapped for a symlink meanwhile is refused, and a file swapped for a
symlink after the rename is never touched again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from handoff_gate.cli.errors import UsageError, flat, os_problem

STDOUT = "-"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Target:
    """The output file: its name inside a folder held open since the wait started."""

    shown: str
    folder: str
    folder_fd: int
    name: str

    def existing_mode(self) -> int | None:
        """The permission bits of the file there now (``None``: none yet); ``UsageError``
        when the name is now a symlink or not a regular file."""
        try:
            found = os.stat(self.name, dir_fd=self.folder_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise os_problem("write", self.shown, exc) from exc
        if stat.S_ISLNK(found.st_mode):
            raise UsageError(f"cannot write {self.shown}: it is a symlink; give the real path")
        if not stat.S_ISREG(found.st_mode):
            raise UsageError(f"cannot write {self.shown}: not a regular file")
        return stat.S_IMODE(found.st_mode)

    def still_there(self) -> bool:
        """Whether the folder's path still names the folder held open (not moved or
        swapped for a symlink while the wait blocked)."""
        try:
            now = Path(self.folder).lstat()
        except OSError:
            return False
        held = os.fstat(self.folder_fd)
        return stat.S_ISDIR(now.st_mode) and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _open_folder(shown: str, folder: str) -> int:
    try:
        return os.open(folder, _DIR_FLAGS)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise UsageError(f"cannot write {shown}: the folder {flat(folder)} does not exist") from exc
    except OSError as exc:  # ELOOP: swapped for a symlink since it was resolved
        raise os_problem("write", shown, exc) from exc


@contextlib.contextmanager
def checked_target(name: str | None) -> Iterator[Target | None]:
    """The file to write the payload to, ``None`` for stdout (``-`` or no ``--out``);
    ``UsageError`` if unusable. Its folder stays open until the block ends."""
    if name is None or name == STDOUT:
        yield None
        return
    shown = flat(name)
    path = Path(name)
    if path.name in ("", ".", ".."):
        raise UsageError(f"cannot write {shown}: not a file name")
    folder = str(path.absolute().parent.resolve())
    fd = _open_folder(shown, folder)
    try:
        if not os.access(".", os.W_OK | os.X_OK, dir_fd=fd):
            raise UsageError(f"cannot write {shown}: permission denied")
        target = Target(shown, folder, fd, path.name)
        target.existing_mode()
        yield target
    finally:
        os.close(fd)


def _write_new(target: Target, temp: str, data: bytes, mode: int | None) -> None:
    fd = os.open(temp, _NEW_FLAGS, 0o644, dir_fd=target.folder_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_payload(target: Target | None, text: str) -> None:
    """Write to stdout, or replace the target whole in its held folder, keeping an
    existing file's mode; ``UsageError`` (nothing written) when the folder was moved or
    replaced since the wait started, or the name is now a symlink."""
    if target is None:
        sys.stdout.write(text)
        return
    if not target.still_there():
        raise UsageError(
            f"cannot write {target.shown}: its folder was moved or replaced while waiting; "
            "nothing written (the decision stands: wait again)"
        )
    mode = target.existing_mode()
    temp = f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    where = target.folder_fd
    try:
        _write_new(target, temp, text.encode(), mode)
        os.replace(temp, target.name, src_dir_fd=where, dst_dir_fd=where)
        os.fsync(where)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=where)
        raise os_problem("write", target.shown, exc) from exc
