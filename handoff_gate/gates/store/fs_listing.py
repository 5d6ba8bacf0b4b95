"""A run folder's listing with change stamps: what ``FilesystemStore.listing`` returns.

One directory read and a ``stat`` per record, no file read: a front end re-reads only
the handoffs whose stamps moved (the TUI lists a run again on every change, at ten
thousand handoffs too). Files that vanish mid-scan are left out, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from handoff_gate.gates.store.base import ListedHandoff, Stamp
from handoff_gate.gates.store.durable import inside
from handoff_gate.gates.vocab.ids import ID_PATTERN

HANDOFFS = "handoffs"
DECISIONS = "decisions"
AUDIT_FILE = "audit.jsonl"
#: The pipeline's withdrawals (``fs_withdrawals``): a record there moves the handoff's
#: decision stamp, so a front end reads the handoff again and sees it withdrawn.
WITHDRAWALS = "withdrawals"


def stamp_at(path: Path) -> Stamp | None:
    """(mtime_ns, size, inode): a rewrite, a replacement or a new record moves one of them."""
    try:
        found = path.stat()
    except (OSError, ValueError):
        return None
    return (found.st_mtime_ns, found.st_size, found.st_ino)


def handoff_ids_in(run_dir: Path) -> list[str]:
    """Handoff ids in sequence order: regular files (not symlinks) with valid names only,
    which cannot lead out of the run, so only the folder is checked."""
    folder = run_dir / HANDOFFS
    found: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            stem = entry.name.removesuffix(".json")
            named = stem != entry.name and ID_PATTERN.match(stem)
            if named and entry.is_file(follow_symlinks=False):
                found.append(stem)
    if found:
        inside(run_dir, HANDOFFS)  # the folder itself must not lead out of the run
    return sorted(found, key=lambda i: (int(i.split("-", 1)[0]), i))


def _joined(a: Stamp | None, b: Stamp | None) -> Stamp | None:
    """One stamp for the unsigned record and the signed records' folder together."""
    if a is None or b is None:
        return a or b
    return (max(a[0], b[0]), a[1] + b[1], a[2] ^ b[2])


def decision_stamp(run_dir: Path, handoff_id: str) -> Stamp | None:
    """The unsigned record's stamp joined with the signed records' folder's (which moves
    as each principal's record is added) and the withdrawal's; ``None`` without any."""
    record = run_dir / DECISIONS / handoff_id
    decided = _joined(stamp_at(record.with_name(f"{handoff_id}.json")), stamp_at(record))
    return _joined(decided, stamp_at(run_dir / WITHDRAWALS / handoff_id))


def _decision_stamps(run_dir: Path) -> dict[str, Stamp | None]:
    stamps: dict[str, Stamp | None] = {}
    for folder in (DECISIONS, WITHDRAWALS):
        try:
            with os.scandir(run_dir / folder) as found:
                names = [item.name for item in found]
        except OSError:
            continue
        for name in names:
            if name.startswith("."):
                continue
            handoff_id = name.removesuffix(".json")  # a record, or a folder of signed ones
            stamped = stamp_at(run_dir / folder / name)
            stamps[handoff_id] = _joined(stamps.get(handoff_id), stamped)
    return stamps


def list_run_dir(run_dir: Path, handoff_ids: Collection[str] | None = None) -> list[ListedHandoff]:
    """A whole run reads ``decisions/`` once; a few ids stat their own records only."""
    try:
        if handoff_ids is None:
            ids = handoff_ids_in(run_dir)
            decisions = _decision_stamps(run_dir)
        else:
            wanted = sorted(i for i in handoff_ids if isinstance(i, str) and ID_PATTERN.match(i))
            ids = [i for i in wanted if _is_handoff(run_dir, i)]
            decisions = {i: decision_stamp(run_dir, i) for i in ids}
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop
        return []
    listed: list[ListedHandoff] = []
    for handoff_id in ids:
        stamp = stamp_at(run_dir / HANDOFFS / f"{handoff_id}.json")
        if stamp is not None:
            listed.append(ListedHandoff(handoff_id, stamp, decisions.get(handoff_id)))
    return listed


def _is_handoff(run_dir: Path, handoff_id: str) -> bool:
    path = inside(run_dir, HANDOFFS, f"{handoff_id}.json")
    return path.is_file() and not path.is_symlink()
