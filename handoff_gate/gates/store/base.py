"""The store seam by capability: ``RunStore``, what every store does, and two capabilities.

A run holds handoffs (written once, numbered in order), decisions (at most one per
principal per handoff, created exclusively) and a hash-chained audit log. The filesystem
store keeps them in a run directory; the PostgreSQL store in tables. Both give the same
guarantees, so everything above this seam (submit, decide, wait, audit) is written once:

- ``add_handoff`` numbers a handoff and publishes it whole, or not at all; with an
  idempotency key, a second submit of the same key returns the first handoff.
- ``create_decision`` succeeds for exactly one writer per (handoff, principal) and records
  its audit event with it; every other writer gets ``DecisionExists``.
- ``append_event`` keeps the audit chain linear across processes and hosts.

A run is addressed by a string: a folder under the store's root for the filesystem
store, a run id for a database. Every id is checked against ``vocab.ids`` before a store
sees it. A store object is for one thread; ``copy`` gives another thread its own, and
``close`` releases what it holds.

What not every store needs is a capability callers test for with ``isinstance``, never
by asking which store they have: ``Watchable`` (change hints for a front end, a blocked
wait's wake-ups) and ``FolderMechanics`` (what only a run folder the pipeline's account
can write needs), which a database does not implement rather than answer constants.
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
    """The store cannot serve the request (down, not set up, too new); the message is one
    line, fit for stderr."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or refused the login; the message is one line.

    Defined here, not with the database driver, so code that waits on any store can
    catch it without loading the driver.
    """


class ContractConflict(FileExistsError):
    """The run already holds another document under this contract id: a contract id
    names one content for good, so a changed schema needs a new version."""

    def __init__(self, schema_id: str, stored: str, offered: str) -> None:
        super().__init__(
            f"contract {schema_id} is already stored with sha256 {stored}, not {offered}: "
            "make a new version (e.g. bump /vN) for a changed schema"
        )
        self.schema_id = schema_id
        self.stored = stored
        self.offered = offered


class StoredContract(NamedTuple):
    """A contract a run holds: its id, the sha256 naming its content, its kind
    (``json-schema``) and when it was added (ISO-8601 UTC)."""

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
    """A handoff as the store returns it: its id and number, and whether it was new."""

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

    ``Change()``: anything (watching (re)started, or a hint named nothing usable).
    ``Change(run)``: the run, which may also be new or gone. ``Change(run, id)``: one
    handoff, its decisions or its waiters. ``run`` is as the store addresses it.
    """

    run: str | None = None
    handoff_id: str | None = None


class WatchLapse(NamedTuple):
    """Watching stopped for ``reason`` (one line); it resumes on its own, with a
    ``Change()``, since nothing changed meanwhile sent a hint."""

    reason: str


class Subscription(Protocol):
    """A blocked wait's wake-ups: ``wake`` is called (from another thread) whenever the
    handoff's decisions may have changed. Only a hint: the waiter re-reads after it."""

    def rearm(self) -> bool:
        """Watch where the next decision will appear; ``True`` when that changed (the
        first call always), so the caller looks again before it sleeps."""
        ...

    def close(self) -> None:
        """Stop the wake-ups; closing twice is harmless."""
        ...


class RunStore(Protocol):
    """Where runs live. Methods raise ``OSError`` subclasses for storage failures."""

    #: What a message calls a run of this store ("run directory", "database run"), so
    #: no code above the seam asks which store it has to word one.
    run_noun: str

    def label(self) -> str:
        """The store as a person reads it (a folder, a database host): never a password."""
        ...

    def run_name(self, run: str) -> str:
        """The name ``run``'s records carry: a run folder's own name, or the run id."""
        ...

    def run_label(self, run: str) -> str:
        """Where ``run`` is, as a person or a script names it: a folder's absolute path,
        or the run id. It addresses the same run in this store, so a front end may key
        runs by it (the TUI does)."""
        ...

    def runs(self) -> list[str]:
        """Every run in the store, sorted, each as the store addresses it."""
        ...

    def listing(self, run: str, handoff_ids: Collection[str] | None = None) -> list[ListedHandoff]:
        """Every handoff of ``run`` (or those of ``handoff_ids`` still there), in sequence
        order, with stamps; nothing is read but names and stamps. A run that is gone, or
        vanishes mid-listing, lists what was seen (possibly nothing): never an error for a
        watcher to report. An id that is not a handoff id is simply not there."""
        ...

    def exists(self, run: str) -> bool:
        """Whether ``run`` holds any records."""
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

        With an ``idempotency_key`` already used in the run, nothing is written and the handoff
        that key named is returned with ``created=False``.
        """
        ...

    def handoff_ids(self, run: str) -> list[str]:
        """Every handoff id of ``run``, in sequence order."""
        ...

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        """The exact stored bytes; ``FileNotFoundError`` if absent, ``OversizeError`` if
        larger than ``max_bytes``."""
        ...

    def handoff_sha256(self, run: str, handoff_id: str) -> str:
        """The sha256 of a handoff however big (one too big to inspect can still be
        rejected by its bytes); empty when it cannot be read."""
        ...

    def add_contract(
        self, run: str, schema_id: str, sha256: str, document: bytes, *, added: str
    ) -> bool:
        """Store a contract's ``document`` (a JSON Schema) under ``schema_id`` and the
        ``sha256`` naming its content, written exclusively like a handoff, noting when it
        was ``added`` (ISO-8601 UTC, the gate's clock); ``True`` when it was new. The
        same id with the same digest is a no-op (``False``); another digest under a
        stored id is ``ContractConflict``. The store does not judge the
        document: readers check it against the digest (``gates.submit.stored_contracts``)."""
        ...

    def contracts(self, run: str) -> list[StoredContract]:
        """Every contract ``run`` holds, by id; a record that cannot be read is left out
        (a reader of its digest then finds nothing, and blocks)."""
        ...

    def contract_document(self, run: str, sha256: str) -> bytes | None:
        """The document stored under ``sha256`` in ``run`` (``None``: none), unchecked."""
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

    def decided_ids(self, run: str) -> list[str]:
        """The ids of ``run``'s handoffs that have any decision record, in sequence order:
        where an append-only baseline (an approved handoff) can be, found from the
        decisions themselves, never from an index the pipeline writes."""
        ...

    def create_edit(self, run: str, handoff_id: str, data: bytes) -> str:
        """Keep a reviewer's edited payload of a handoff, before the approval naming it is
        written; returns its sha256, which is its name. Created exclusively and never
        replaced: the same bytes again are the same edit (two approvers of one edit share
        it), other bytes under a taken name are an ``OSError``."""
        ...

    def edit_bytes(self, run: str, handoff_id: str, sha256: str, max_bytes: int) -> bytes:
        """The edited payload named ``sha256``, checked to hash to it (``OSError`` if not);
        ``FileNotFoundError`` if absent, ``OversizeError`` if larger than ``max_bytes``."""
        ...

    def create_withdrawal(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record the pipeline's withdrawal of a handoff exclusively, with its audit
        ``event``; returns the event as logged. ``WithdrawalExists`` if already withdrawn."""
        ...

    def withdrawal_record(self, run: str, handoff_id: str) -> bytes | None:
        """The handoff's withdrawal record, if the pipeline withdrew it."""
        ...

    def create_delivery(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record that the handoff's approval was delivered, exclusively, with its audit
        ``event``; returns the event as logged. ``DeliveryExists`` if delivered already."""
        ...

    def delivery_record(self, run: str, handoff_id: str) -> bytes | None:
        """The record of the handoff's first delivery, if its approval was delivered."""
        ...

    def append_event(self, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """Append one audit event, chained to the one before; returns it as logged."""
        ...

    def log_bytes(self, run: str) -> bytes:
        """The whole audit log, one JSON object a line."""
        ...

    def log_chunks(self, run: str) -> Iterator[bytes]:
        """The log as ``log_bytes`` returns it, in bounded pieces, so a reader of a huge or
        planted log never holds it whole (``log_lines`` cuts them into lines)."""
        ...

    def waiting(self, run: str, handoff_id: str, started: str) -> AbstractContextManager[object]:
        """Record, for as long as the ``with`` lasts, that this process waits on the
        handoff since ``started`` (where the store can: ``waiters`` then finds it)."""
        ...

    def waiters(
        self, run: str, handoff_ids: Collection[str] | None = None
    ) -> dict[str, tuple[WaiterRecord, ...]] | None:
        """The live waiters of each handoff (of ``handoff_ids``, or all) that has any,
        oldest first; ``None`` when the store cannot tell."""
        ...

    def copy(self) -> RunStore:
        """A store object on the same runs for another thread (itself when it can be
        shared); the caller closes it."""
        ...

    def close(self) -> None:
        """Release connections; the next call opens what it needs again."""
        ...


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
        """Call ``on_change`` with hints of what changed anywhere in the store, until
        ``stop`` is set; blocks, so give it a thread of its own.

        It sends ``Change()`` first, once watching is (about to be) in place, and again
        whenever it resumes after a ``WatchLapse``: list after that and nothing is missed.
        It watches with resources of its own (a filesystem watcher over the root; a
        database connection that LISTENs), never the store object's. ``poll``: do not
        rely on change events (a network filesystem delivers none). ``on_change`` runs
        on the watching thread: keep it quick.
        """
        ...

    def subscribe(
        self,
        run: str,
        handoff_id: str,
        wake: Callable[[], None],
        *,
        signed: bool,
        poll: bool = False,
    ) -> Subscription:
        """Wake-ups for a wait on one handoff; nothing is watched before ``rearm``.

        ``signed``: the wait counts signed records (one per principal). ``poll``: do
        not rely on change events (a network filesystem delivers none). ``wake`` must be
        quick and thread-safe (``threading.Event.set``, ``loop.call_soon_threadsafe``).
        """
        ...


@runtime_checkable
class FolderMechanics(Protocol):
    """What only a run folder needs: the pipeline's own account can write it, so it can
    remove a veto, plant a record in a reviewer's slot, or put another folder (or a
    link) at the run's address; a database's roles rule all three out."""

    def run_identity(self, run: str) -> str:
        """What makes ``run`` this folder and not another put at its address: its
        device and inode (``RunReplaced`` when the path itself is a symlink, which an
        agent could re-point). A wait takes it when it starts and stops without
        delivering if it changes; ``audit --verify`` reports a linked run."""
        ...

    def set_aside_decision(self, run: str, handoff_id: str, principal: str) -> bool:
        """Move what holds ``principal``'s slot out of the way (``decide`` asks only when
        it is not a valid record of that principal), so the principal's own decision can
        be recorded; ``True`` when something was moved."""
        ...

    def veto_exposure(self, run: str) -> str | None:
        """Why the account asking could remove a reviewer's decision record of ``run``
        (a same-account run folder), or ``None`` when it cannot (the separated layout of
        ``FilesystemStore.separate``)."""
        ...


def watchable(store: RunStore) -> Watchable:
    """``store`` as a ``Watchable``; ``StoreError`` (one line) for one that cannot be:
    a wait or a screen that would never hear of a change must not start."""
    if isinstance(store, Watchable):
        return store
    raise StoreError(f"{store.label()} cannot be watched for changes")


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
