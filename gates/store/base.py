"""``RunStore``: the one interface through which a run's records are read and written.

A run holds handoffs (written once, numbered in order), decisions (at most one per
principal per handoff, created exclusively) and a hash-chained audit log. The filesystem
store keeps them in a run directory; the PostgreSQL store in tables. Both give the same
guarantees, so everything above this seam (submit, decide, wait, audit) is written once:

- ``add_handoff`` numbers a handoff and publishes it whole, or not at all; with an
  idempotency key, a second submit of the same key returns the first handoff.
- ``create_decision`` succeeds for exactly one writer per (handoff, principal) and records
  its audit event with it; every other writer gets ``DecisionExists``.
- ``append_event`` keeps the audit chain linear across processes and hosts.

A run is addressed by a string: a directory path for the filesystem store, a run id for
a database. Every id is checked against ``vocab.ids`` before a store sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol, runtime_checkable

from handoff_gate.gates.store.durable import OversizeError


class DecisionExists(FileExistsError):
    """Another writer already decided this handoff for this principal."""


class StoreError(Exception):
    """The store cannot serve the request (down, not set up, too new); the message is one
    line, fit for stderr."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or refused the login; the message is one line.

    Defined here, not with the database driver, so code that waits on any store can
    catch it without loading the driver.
    """


class RunMissing(FileNotFoundError):
    """The run (or the folder a new run would go in) does not exist."""


class StoredHandoff(NamedTuple):
    """A handoff as the store returns it: its id and number, and whether it was new."""

    id: str
    seq: int
    created: bool


class RunStore(Protocol):
    """Where runs live. Methods raise ``OSError`` subclasses for storage failures."""

    #: Whether runs are local directories (names are paths) rather than database ids.
    is_local: bool
    #: What a message calls a run of this store ("run directory", "database run"), so
    #: no code above the seam asks which store it has to word one.
    run_noun: str

    def exists(self, run: str) -> bool:
        """Whether ``run`` holds any records."""
        ...

    def locate(self, run: str) -> str:
        """``run`` as a message names it: an absolute path, or the database's run id."""
        ...

    def create(self, run: str) -> bool:
        """Make ``run`` exist (a directory with its missing parents, as ``mkdir -p``; a
        database row); ``True`` only for the one caller that made it."""
        ...

    def add_handoff(
        self,
        run: str,
        phase: str,
        envelope: Callable[[int, str], bytes],
        *,
        idempotency_key: str | None = None,
    ) -> StoredHandoff:
        """Publish the next handoff of ``run``: ``envelope(seq, id)`` gives its bytes.

        With an ``idempotency_key`` already used in the run, nothing is written and the
        handoff that key named is returned with ``created=False``.
        """
        ...

    def handoff_ids(self, run: str) -> list[str]:
        """Every handoff id of ``run``, in sequence order."""
        ...

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        """The exact stored bytes; ``FileNotFoundError`` if absent, ``OversizeError`` if
        larger than ``max_bytes``."""
        ...

    def create_decision(
        self,
        run: str,
        handoff_id: str,
        principal: str | None,
        data: bytes,
        event: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Record a decision exclusively, with its audit ``event``; returns the event as
        logged. ``DecisionExists`` if this principal (``None``: the one unsigned slot)
        already decided."""
        ...

    def decision_records(self, run: str, handoff_id: str) -> dict[str | None, bytes]:
        """Every decision record of a handoff, by principal (``None``: unsigned)."""
        ...

    def append_event(self, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """Append one audit event, chained to the one before; returns it as logged."""
        ...

    def log_bytes(self, run: str) -> bytes:
        """The whole audit log, one JSON object a line."""
        ...


@runtime_checkable
class ChangeFeed(Protocol):
    """A store that can wake a waiter (a database's ``LISTEN``). The filesystem store has
    none of its own: waiters share a watcher of the run folder (``store.fs_watch``)."""

    def wait_for_change(self, run: str, timeout: float) -> None:
        """Block until a handoff or decision of ``run`` may have changed, or ``timeout``.

        Only a hint: callers re-read what they wait for after it returns.
        """
        ...


@runtime_checkable
class RunCatalog(Protocol):
    """A store that can name all of its runs (a database). On the filesystem, runs are
    found by looking under a folder (``store.filesystem.find_runs``)."""

    def runs(self) -> list[str]:
        """Every run id in the store, sorted."""
        ...


def has_handoff(store: RunStore, run: str, handoff_id: str) -> bool:
    """Whether the handoff is in ``run``, asked without reading it: with a zero-byte cap
    either store only compares sizes, and an oversize handoff exists (inspection then
    blocks it). Other storage failures count as absent; a bad id still raises."""
    try:
        store.handoff_bytes(run, handoff_id, 0)
    except OversizeError:
        return True
    except OSError:
        return False
    return True
