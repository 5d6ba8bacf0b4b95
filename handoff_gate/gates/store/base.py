"""The store seam: ``RunStore``, what every store does, and the capabilities ``Watchable``
and ``FolderMechanics``, which callers test for with ``isinstance`` (docs/architecture.md).

Both stores give the same guarantees, so everything above the seam is written once:
``add_handoff`` publishes a handoff whole or not at all (an idempotency key used again
returns the first); ``create_decision`` succeeds for exactly one writer per (handoff,
principal); ``append_event`` keeps the audit chain linear across processes and hosts.
Every id is checked against ``vocab.ids`` before a store sees it. A store object is for
one thread; ``copy`` gives another thread its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from handoff_gate.gates.store.durable import OversizeError

if TYPE_CHECKING:
    import threading


class DecisionExists(FileExistsError):
    """Another writer already decided this handoff for this principal."""


class WithdrawalExists(FileExistsError):
    """The handoff was withdrawn already: a withdrawal is written once, ever."""


class DeliveryExists(FileExistsError):
    """The approval was delivered already: a tool call's approval is delivered once."""


class StoreError(Exception):
    """The store cannot serve the request (down, not set up, too new); one line."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or refused the login. Defined here so code that waits
    on any store can catch it without loading the database driver."""


class ContractConflict(FileExistsError):
    """A contract id names one content for good: a changed schema needs a new version."""

    def __init__(self, schema_id: str, stored: str, offered: str) -> None:
        super().__init__(
            f"contract {schema_id} is already stored with sha256 {stored}, not {offered}: "
            "make a new version (e.g. bump /vN) for a changed schema"
        )
        self.schema_id = schema_id
        self.stored = stored
        self.offered = offered


class StoredContract(NamedTuple):
    """A contract a run holds; ``kind`` is ``json-schema``, ``added`` ISO-8601 UTC."""

    schema_id: str
    sha256: str
    kind: str
    added: str


class RunMissing(FileNotFoundError):
    """The run (or the folder a new run would go in) does not exist."""


class RunReplaced(OSError):
    """The run's path is a symlink, or no longer names the run it named when a wait
    started (moved away, a copy or a link put in its place); the message is one line."""


class StoredHandoff(NamedTuple):
    id: str
    seq: int
    created: bool


class WaiterRecord(NamedTuple):
    """A process blocked on a handoff since ``started`` (ISO-8601 UTC)."""

    pid: int
    started: str


#: Three numbers that change whenever the record they stamp does; the first is when it
#: was last written (ns since the epoch), so a list can put the newest first. Only ever
#: compared with a stamp of the same record from the same store.
Stamp = tuple[int, int, int]


class ListedHandoff(NamedTuple):
    """A handoff as ``listing`` sees it, without reading it: if both stamps equal those of
    the last look, nothing an inspection reads has changed (its bytes, its decisions)."""

    id: str
    stamp: Stamp
    #: ``None``: no decision record yet; else it moves with every record added.
    decision_stamp: Stamp | None


class Change(NamedTuple):
    """A hint from ``watch`` of what may have changed; list it again, never trust it.
    ``Change()``: anything; ``Change(run)``: the run (maybe new or gone);
    ``Change(run, id)``: one handoff, its decisions or its waiters."""

    run: str | None = None
    handoff_id: str | None = None


class WatchLapse(NamedTuple):
    """Watching stopped for ``reason`` (one line); it resumes on its own, with a
    ``Change()``, since nothing changed meanwhile sent a hint."""

    reason: str


class Subscription(Protocol):
    """A blocked wait's wake-ups; only a hint: the waiter re-reads after each."""

    def rearm(self) -> bool:
        """Watch where the next decision will appear; ``True`` when that changed (the
        first call always), so the caller looks again before it sleeps."""

    def close(self) -> None:
        """Stop the wake-ups; closing twice is harmless."""


class RunStore(Protocol):
    """Where runs live. Methods raise ``OSError`` subclasses for storage failures."""

    #: What a message calls a run ("run directory", "database run").
    run_noun: str

    def label(self) -> str:
        """The store as a person reads it (a folder, a database host): never a password."""

    def run_name(self, run: str) -> str:
        """The name ``run``'s records carry: a run folder's own name, or the run id."""

    def run_label(self, run: str) -> str:
        """A folder's absolute path, or the run id; it addresses the same run, so a front
        end may key runs by it."""

    def runs(self) -> list[str]:
        """Every run in the store, sorted, each as the store addresses it."""

    def listing(self, run: str, handoff_ids: Collection[str] | None = None) -> list[ListedHandoff]:
        """Every handoff of ``run`` (or of ``handoff_ids``) in sequence order, with stamps,
        reading nothing else. A run gone (even mid-listing) lists what was seen: never an
        error for a watcher to report."""

    def exists(self, run: str) -> bool:
        """Whether ``run`` holds any records."""

    def create(self, run: str) -> bool:
        """Make ``run`` exist (a directory with its missing parents, as ``mkdir -p``; a
        database row); ``True`` only for the one caller that made it."""

    def add_handoff(
        self,
        run: str,
        phase: str,
        envelope: Callable[[int, str], bytes],
        *,
        idempotency_key: str | None = None,
    ) -> StoredHandoff:
        """Publish the next handoff: ``envelope(seq, id)`` gives its bytes. A used
        ``idempotency_key`` writes nothing and returns its handoff, ``created=False``."""

    def handoff_ids(self, run: str) -> list[str]:
        """Every handoff id of ``run``, in sequence order."""

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        """The exact stored bytes; ``FileNotFoundError`` if absent, ``OversizeError`` if
        larger than ``max_bytes``."""

    def handoff_sha256(self, run: str, handoff_id: str) -> str:
        """The sha256 of a handoff however big (one too big to inspect can still be
        rejected by its bytes); empty when it cannot be read."""

    def add_contract(
        self, run: str, schema_id: str, sha256: str, document: bytes, *, added: str
    ) -> bool:
        """Store a JSON Schema exclusively under ``schema_id``; ``True`` when new, ``False``
        for the same digest again, ``ContractConflict`` for another. Unjudged: readers
        check it against the digest (``gates.submit.stored_contracts``)."""

    def contracts(self, run: str) -> list[StoredContract]:
        """Every contract ``run`` holds, by id; a record that cannot be read is left out
        (a reader of its digest then finds nothing, and blocks)."""

    def contract_document(self, run: str, sha256: str) -> bytes | None:
        """The document stored under ``sha256`` in ``run`` (``None``: none), unchecked."""

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

    def decision_records(self, run: str, handoff_id: str) -> dict[str | None, bytes]:
        """Every decision record of a handoff, by principal (``None``: unsigned)."""

    def decided_ids(self, run: str) -> list[str]:
        """The ids of handoffs with any decision record, in sequence order (where an
        append-only baseline can be), found from the records, never a pipeline's index."""

    def create_edit(self, run: str, handoff_id: str, data: bytes) -> str:
        """Keep a reviewer's edited payload before the approval naming it; returns its
        sha256, its name. Never replaced: the same bytes again are the same edit, other
        bytes under a taken name an ``OSError``."""

    def edit_bytes(self, run: str, handoff_id: str, sha256: str, max_bytes: int) -> bytes:
        """The edited payload named ``sha256``, checked to hash to it (``OSError`` if not);
        ``FileNotFoundError`` if absent, ``OversizeError`` if larger than ``max_bytes``."""

    def create_withdrawal(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record the pipeline's withdrawal of a handoff exclusively, with its audit
        ``event``; returns the event as logged. ``WithdrawalExists`` if already withdrawn."""

    def withdrawal_record(self, run: str, handoff_id: str) -> bytes | None:
        """The handoff's withdrawal record, if the pipeline withdrew it."""

    def create_delivery(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record that the handoff's approval was delivered, exclusively, with its audit
        ``event``; returns the event as logged. ``DeliveryExists`` if delivered already."""

    def delivery_record(self, run: str, handoff_id: str) -> bytes | None:
        """The record of the handoff's first delivery, if its approval was delivered."""

    def append_event(self, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """Append one audit event, chained to the one before; returns it as logged."""

    def log_chunks(self, run: str) -> Iterator[bytes]:
        """The audit log, one JSON object a line, in bounded pieces, so a reader of a huge
        or planted log never holds it whole (``log_lines`` cuts them into lines)."""

    def waiting(self, run: str, handoff_id: str, started: str) -> AbstractContextManager[object]:
        """Record, for as long as the ``with`` lasts, that this process waits on the
        handoff since ``started`` (where the store can: ``waiters`` then finds it)."""

    def waiters(
        self, run: str, handoff_ids: Collection[str] | None = None
    ) -> dict[str, tuple[WaiterRecord, ...]] | None:
        """The live waiters of each handoff (of ``handoff_ids``, or all) that has any,
        oldest first; ``None`` when the store cannot tell."""

    def copy(self) -> RunStore:
        """A store object on the same runs for another thread (itself when it can be
        shared); the caller closes it."""

    def close(self) -> None:
        """Release connections; the next call opens what it needs again."""


@runtime_checkable
class Watchable(Protocol):
    """A store that can say what changed: ``watch`` for a front end showing every run,
    ``subscribe`` for a wait blocked on one handoff. Hints only: the caller lists or
    reads again after each."""

    def watch(
        self,
        on_change: Callable[[Change | WatchLapse], None],
        stop: threading.Event,
        *,
        poll: bool = False,
    ) -> None:
        """Call ``on_change`` (quick, on the watching thread) with hints until ``stop``;
        blocks. ``Change()`` comes first and after each ``WatchLapse``: list after it and
        nothing is missed. ``poll``: a network filesystem delivers no change events."""

    def subscribe(
        self,
        run: str,
        handoff_id: str,
        wake: Callable[[], None],
        *,
        signed: bool,
        poll: bool = False,
    ) -> Subscription:
        """Wake-ups for a wait on one handoff, watched from ``rearm`` on; ``wake`` must be
        quick and thread-safe. ``signed``: the wait counts signed records."""


@runtime_checkable
class FolderMechanics(Protocol):
    """What only a run folder needs: the pipeline's account can write it (remove a veto,
    plant a record, put another folder at the run's address); a database's roles cannot."""

    def run_identity(self, run: str) -> str:
        """What makes ``run`` this folder and not another put at its address
        (``RunReplaced`` for a symlink); a wait stops without delivering if it changes."""

    def set_aside_decision(self, run: str, handoff_id: str, principal: str) -> bool:
        """Move an invalid record out of ``principal``'s slot; ``True`` when one moved."""

    def veto_exposure(self, run: str) -> str | None:
        """Why this account could remove a reviewer's decision record of ``run``, or
        ``None`` when it cannot (``FilesystemStore.separate``)."""


def watchable(store: RunStore) -> Watchable:
    """``store`` as a ``Watchable``; ``StoreError`` (one line) for one that cannot be:
    a wait or a screen that would never hear of a change must not start."""
    if isinstance(store, Watchable):
        return store
    raise StoreError(f"{store.label()} cannot be watched for changes")


def has_handoff(store: RunStore, run: str, handoff_id: str) -> bool:
    """Asked without reading: with a zero-byte cap a store only compares sizes, and an
    oversize handoff exists. Other storage failures count as absent; a bad id raises."""
    try:
        store.handoff_bytes(run, handoff_id, 0)
    except OversizeError:
        return True
    except OSError:
        return False
    return True


def live_waiters(store: RunStore, run: str, handoff_id: str) -> tuple[WaiterRecord, ...] | None:
    """The handoff's live waiters, oldest first; ``None`` when the store cannot tell, or
    failed to (a caller that needs one counts that as nobody waiting)."""
    try:
        found = store.waiters(run, [handoff_id])
    except (OSError, ValueError):
        return None
    return None if found is None else found.get(handoff_id, ())
