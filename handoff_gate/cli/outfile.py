"""``wait --out FILE``: checked before waiting, written only as a regular file.

The target is refused up front (exit 2, nothing decided yet) when its folder is missing
or not writable, or when it is a symlink or an existing non-regular file (``/dev/null``,
a FIFO): the approved payload is written by an atomic rename, which would replace such
an entry rather than write through it. An existing file keeps its permission bits.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from handoff_gate.cli.errors import UsageError, flat, os_problem
from handoff_gate.gates.store.durable import atomic_write

STDOUT = "-"


def checked_target(name: str) -> Path | None:
    """The file to write the payload to, ``None`` for stdout; ``UsageError`` if unusable."""
    if name == STDOUT:
        return None
    path = Path(name)
    shown = flat(name)
    folder = path.absolute().parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {shown}: the folder {flat(str(folder))} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {shown}: permission denied")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise os_problem("write", shown, exc) from exc
    if stat.S_ISLNK(mode):
        raise UsageError(f"cannot write {shown}: it is a symlink; give the real path")
    if not stat.S_ISREG(mode):
        raise UsageError(f"cannot write {shown}: not a regular file")
    return path


def write_payload(target: Path | None, text: str) -> None:
    """Write to stdout, or replace ``target`` whole, keeping an existing file's mode."""
    if target is None:
        sys.stdout.write(text)
        return
    checked_target(str(target))
    try:
        old_mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        old_mode = None
    try:
        atomic_write(target, text.encode())
        if old_mode is not None:
            target.chmod(old_mode)
    except OSError as exc:
        raise os_problem("write", flat(str(target)), exc) from exc
