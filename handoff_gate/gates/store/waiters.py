"""Who is blocked on a handoff in a run folder, so a reviewer can tell a waiting pipeline
from one that gave up: ``waiters/{handoff}.{pid}`` per live ``wait``. A record whose
process is gone counts as no waiter; readers never delete it, so looking stays read-only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from handoff_gate.gates.store.base import WaiterRecord
from handoff_gate.gates.store.durable import atomic_write, inside, read_bounded
from handoff_gate.gates.vocab.ids import validate_id

WAITERS = "waiters"
#: A record is a pid and a timestamp; anything larger is not one of ours.
_MAX_RECORD_BYTES = 256


@contextmanager
def registered(run_dir: Path, handoff_id: str, started: str) -> Iterator[WaiterRecord]:
    waiter = WaiterRecord(os.getpid(), started)
    path = inside(run_dir, WAITERS, f"{validate_id(handoff_id)}.{waiter.pid}")
    path.parent.mkdir(exist_ok=True)
    body = {"pid": waiter.pid, "started": waiter.started}
    atomic_write(path, json.dumps(body, separators=(",", ":")).encode())
    try:
        yield waiter
    finally:
        path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Not a zombie either: a killed waiter whose parent has not reaped it (or never
    will, under a container's init) is gone all the same."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True  # no /proc to ask: the signal said it exists
    state = stat[stat.rfind(b")") + 2 :][:1]  # the field after "(comm)", which may hold ")"
    return state not in (b"Z", b"X")


def _read(path: Path) -> WaiterRecord | None:
    try:
        value = json.loads(read_bounded(path, _MAX_RECORD_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    pid, started = value.get("pid"), value.get("started")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    if not isinstance(started, str) or not path.name.endswith(f".{pid}"):
        return None
    return WaiterRecord(pid, started)


def live_waiters(run_dir: Path, handoff_id: str) -> list[WaiterRecord]:
    """Oldest first. A pid reused after its waiter died reads as live (rare)."""
    folder = inside(run_dir, WAITERS)
    prefix = f"{validate_id(handoff_id)}."
    if not folder.is_dir():
        return []
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            suffix = entry.name.removeprefix(prefix)
            if suffix == entry.name or not suffix.isdigit() or entry.is_symlink():
                continue
            waiter = _read(Path(entry.path))
            if waiter is not None and _alive(waiter.pid):
                found.append(waiter)
    return sorted(found, key=lambda w: (w.started, w.pid))


def waiters_in(
    run_dir: Path, ids: Collection[str] | None = None
) -> dict[str, tuple[WaiterRecord, ...]]:
    """A run nobody waits on costs one failed ``scandir``."""
    try:
        with os.scandir(run_dir / WAITERS) as found:
            names = [item.name for item in found]
    except OSError:
        return {}
    named = {name.rpartition(".")[0] for name in names if "." in name}
    wanted = named if ids is None else named & set(ids)
    out: dict[str, tuple[WaiterRecord, ...]] = {}
    for handoff_id in sorted(wanted):
        try:
            live = live_waiters(run_dir, handoff_id)
        except (OSError, ValueError):
            continue
        if live:
            out[handoff_id] = tuple(live)
    return out
