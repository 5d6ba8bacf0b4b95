"""Who may change what in a run directory: the separated layout, and telling it apart.

In a run folder made by one account, that account (the pipeline, and so the agent the
gate guards) can delete or replace a reviewer's signed reject: a veto lasts only until
it is noticed. ``separate`` lays a run out so that it cannot (``handoff-gate init``; each
folder's owner and mode are tabled in docs/security.md, *Separated*).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from handoff_gate.gates.store.fs_contracts import CONTRACTS, IDS
from handoff_gate.gates.store.fs_deliveries import DELIVERIES
from handoff_gate.gates.store.fs_edits import EDITS
from handoff_gate.gates.store.fs_listing import AUDIT_FILE, DECISIONS, HANDOFFS, WITHDRAWALS
from handoff_gate.gates.store.waiters import WAITERS

#: Modes of the separated layout (see the module docstring).
RUN_MODE = 0o2755
DECISIONS_MODE = 0o3775
PIPELINE_DIR_MODE = 0o2755
LOG_MODE = 0o660


def separate(run_dir: Path, pipeline_uid: int, reviewers_gid: int) -> bool:
    """Only root can. A run this made before gets what it lacks (``False``); any other
    existing run is ``FileExistsError``: the pipeline may have touched its decisions."""
    new = not ((run_dir / HANDOFFS).exists() or (run_dir / DECISIONS).exists())
    if not new and not _separated(run_dir):
        raise FileExistsError(f"{run_dir} is a run already; init makes a new run")
    if new:
        run_dir.mkdir(parents=True, exist_ok=True)
        _own(run_dir, 0, reviewers_gid, RUN_MODE)
    for name, uid, mode in (
        (DECISIONS, 0, DECISIONS_MODE),
        (HANDOFFS, pipeline_uid, PIPELINE_DIR_MODE),
        (WAITERS, pipeline_uid, PIPELINE_DIR_MODE),
        (WITHDRAWALS, pipeline_uid, PIPELINE_DIR_MODE),
        (DELIVERIES, pipeline_uid, PIPELINE_DIR_MODE),
        (CONTRACTS, pipeline_uid, PIPELINE_DIR_MODE),
        (f"{CONTRACTS}/{IDS}", pipeline_uid, PIPELINE_DIR_MODE),
        (EDITS, 0, DECISIONS_MODE),
    ):
        folder = run_dir / name
        if folder.is_dir() and not folder.is_symlink():
            continue
        folder.mkdir()
        _own(folder, uid, reviewers_gid, mode)
    log = run_dir / AUDIT_FILE
    if not log.is_file() or log.is_symlink():
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, LOG_MODE)
        os.close(fd)
        _own(log, pipeline_uid, reviewers_gid, LOG_MODE)
    return new


def _separated(run_dir: Path) -> bool:
    try:
        top, decisions = run_dir.lstat(), (run_dir / DECISIONS).lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(top.st_mode)
        and stat.S_ISDIR(decisions.st_mode)
        and (top.st_uid, decisions.st_uid) == (0, 0)
        and stat.S_IMODE(top.st_mode) == RUN_MODE
        and stat.S_IMODE(decisions.st_mode) == DECISIONS_MODE
    )


def _own(path: Path, uid: int, gid: int, mode: int) -> None:
    """chown, then chmod: chown clears the setgid bit."""
    os.chown(path, uid, gid, follow_symlinks=False)
    path.chmod(mode, follow_symlinks=False)


def share_mode(folder: Path) -> None:
    """A per-handoff folder takes a separated parent's mode, so other reviewers may add
    their records to it (and none may remove another's)."""
    parent = folder.parent.stat()
    if parent.st_mode & stat.S_ISGID:
        folder.chmod(stat.S_IMODE(parent.st_mode), follow_symlinks=False)


def veto_exposure(run_dir: Path) -> str | None:
    """It may write or owns the run folder (rename ``decisions/`` away) or ``decisions/``."""
    uid = os.geteuid()
    for folder in (run_dir, run_dir / DECISIONS):
        try:
            info = folder.stat()
        except FileNotFoundError:
            continue
        if uid == 0 or info.st_uid == uid or os.access(folder, os.W_OK, effective_ids=True):
            return f"this account may write {folder}"
    return None
