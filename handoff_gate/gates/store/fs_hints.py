"""``FilesystemStore.watch``: one watchfiles watch over the store's root, turned into hints.

Each changed path becomes a ``Change`` naming what it may affect: one handoff, one run,
or everything. A thread with the blocking watcher, not ``awatch``: the async one loads
anyio's event-loop backend (about 25 ms, before the TUI's first paint).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import watch

from handoff_gate.gates.store.base import Change, WatchLapse
from handoff_gate.gates.store.fs_listing import AUDIT_FILE, DECISIONS, HANDOFFS, WITHDRAWALS
from handoff_gate.gates.store.waiters import WAITERS
from handoff_gate.gates.vocab.ids import ID_PATTERN

#: watchfiles settings: report an isolated change after ~5 ms instead of 50-1600 ms.
WATCH_STEP_MS = 5
WATCH_DEBOUNCE_MS = 50
POLL_DELAY_MS = 100
#: How long to wait before watching again after the watcher failed or the root vanished.
RETRY_S = 2.0

OnChange = Callable[[Change | WatchLapse], None]


def hint_for(root: Path, path: Path, *, root_is_run: bool) -> Change | None:
    """What a changed ``path`` under ``root`` may affect; ``None``: nothing listed (the
    audit log, a sequence reservation)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return Change()
    if root_is_run:
        run, inner = ".", parts
    elif not parts:
        return Change()
    else:
        run, inner = parts[0], parts[1:]
    if not inner:
        return Change(run)
    if inner[0] in (HANDOFFS, DECISIONS):
        if len(inner) == 1:
            return Change(run)
        name = inner[1]
        if name.startswith("."):
            return None  # .seq/ and .keys/ markers: the handoff itself follows
        stem = name.removesuffix(".json") if len(inner) == 2 else name
        if inner[0] == DECISIONS or stem != name:
            return Change(run, stem) if ID_PATTERN.match(stem) else None
        return None
    if inner[0] == WITHDRAWALS and len(inner) == 2:
        return Change(run, inner[1]) if ID_PATTERN.match(inner[1]) else None
    if inner[0] == WAITERS:
        if len(inner) == 2 and "." in inner[1]:
            stem = inner[1].rpartition(".")[0]
            return Change(run, stem) if ID_PATTERN.match(stem) else None
        return Change(run)  # the folder itself: records made with it may have sent no event
    if inner == (AUDIT_FILE,):
        return None
    return Change(run)


def watch_root(root: Path, on_change: OnChange, stop: threading.Event, *, poll: bool) -> None:
    """``RunStore.watch`` over ``root``; after a failure it resumes by polling."""
    polling = poll
    while not stop.is_set():
        if root.is_dir():
            on_change(Change())
            try:
                _watch(root, on_change, stop, polling=polling)
            except (OSError, RuntimeError) as exc:
                on_change(WatchLapse(str(exc)))
                polling = True
            else:
                if stop.is_set():
                    return
                on_change(WatchLapse("the folder was removed"))
        stop.wait(RETRY_S)


def _watch(root: Path, on_change: OnChange, stop: threading.Event, *, polling: bool) -> None:
    for changes in watch(
        root,
        step=WATCH_STEP_MS,
        debounce=WATCH_DEBOUNCE_MS,
        force_polling=polling or None,
        poll_delay_ms=POLL_DELAY_MS,
        stop_event=stop,
        recursive=True,
        ignore_permission_denied=True,
        rust_timeout=int(RETRY_S * 1000),
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        root_is_run = (root / HANDOFFS).is_dir()
        hints = {hint_for(root, Path(path), root_is_run=root_is_run) for _, path in changes}
        for hint in hints:
            if hint is not None:
                on_change(hint)
        if not root.is_dir():
            return
