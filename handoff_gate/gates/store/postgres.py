"""Runs in a PostgreSQL database: the store for pipelines and reviewers on different hosts.

The filesystem store's guarantees, enforced by the database (``postgres_schema``): a
per-run advisory lock numbers handoffs and chains events; a UNIQUE (run, handoff,
principal) constraint makes a decision exclusive, inserted with its audit event. A run
is a run id, not a path. A connection found dead is reopened: reads are retried once,
writes only when they failed before anything was sent (otherwise the caller is told the
outcome is unknown).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import psycopg
from psycopg import errors

from handoff_gate.gates.store import fs_contracts
from handoff_gate.gates.store.base import (
    Change,
    ContractConflict,
    DecisionExists,
    DeliveryExists,
    ListedHandoff,
    RunMissing,
    StoredContract,
    StoredHandoff,
    Subscription,
    WaiterRecord,
    WatchLapse,
    WithdrawalExists,
)
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.store.lock_bound import LockTimeout, deadline_left, gave_up, lock_timeout
from handoff_gate.gates.store.log_chain import chained_line
from handoff_gate.gates.store.pg_connect import StoreUnavailable, connect, one_line
from handoff_gate.gates.store.pg_hints import RunWakes, watch_store
from handoff_gate.gates.store.postgres_schema import (
    LIVE_WAITERS,
    hold_waiter,
    insert_event,
    lock_run,
    release_waiter,
    require_schema,
    run_lock_holder,
)
from handoff_gate.gates.vocab.ids import ID_PATTERN, PRINCIPAL_PATTERN, RUN_ID_PATTERN, validate_id
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    import threading

#: The unsigned slot's principal: the column is NOT NULL so the UNIQUE constraint covers
#: it (NULLs never collide), and no principal name starts with "(".
UNSIGNED = "(unsigned)"
#: Races ``append_event`` retries before it reads and inserts under the run's lock.
_APPEND_TRIES = 3
_LAST_EVENT = "SELECT n, line FROM events WHERE run = %s ORDER BY n DESC LIMIT 1"
_WITHDRAWAL = "SELECT data FROM withdrawals WHERE run = %s AND handoff_id = %s"
_DELIVERY = "SELECT data FROM deliveries WHERE run = %s AND handoff_id = %s"
_CONTRACTS = (
    "SELECT schema_id, sha256, kind, "
    "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
    "FROM contracts WHERE run = %s ORDER BY schema_id"
)

#: A waiting store's read of a handoff's decisions (part 0); once there is one, the same
#: round trip brings what the wait reads next: the handoff (part 1), the last audit line (2).
_DECIDED = """
SELECT 0 AS part, principal, data FROM decisions WHERE run = %(run)s AND handoff_id = %(id)s
UNION ALL
SELECT 1, octet_length(data)::text, CASE WHEN octet_length(data) <= %(max)s THEN data END
FROM handoffs WHERE run = %(run)s AND id = %(id)s
AND EXISTS (SELECT FROM decisions WHERE run = %(run)s AND handoff_id = %(id)s)
UNION ALL
(SELECT 2, n::text, line FROM events WHERE run = %(run)s
AND EXISTS (SELECT FROM decisions WHERE run = %(run)s AND handoff_id = %(id)s)
ORDER BY events.n DESC LIMIT 1)
ORDER BY part, principal
"""

#: ``log_chunks``: rows per page, and the longest row sent whole (longer: in pieces).
_PAGE_ROWS = 256
_PIECE = 64 * 1024
_LOG_PAGE = """
SELECT n, octet_length(line), CASE WHEN octet_length(line) <= %(piece)s THEN line END
FROM events WHERE run = %(run)s AND n > %(after)s ORDER BY n LIMIT %(rows)s
"""
_LOG_PIECE = "SELECT substring(line FROM %s FOR %s) FROM events WHERE run = %s AND n = %s"
#: Each handoff with its stamps: (created, size, seq), and (last created, count) of its
#: decisions; rows are append-only, so these move exactly when something is added.
_LISTING = """
SELECT h.id, h.seq, octet_length(h.data),
       (extract(epoch FROM h.created_at) * 1000000)::bigint,
       count(d.principal), (extract(epoch FROM max(d.created_at)) * 1000000)::bigint
FROM handoffs h LEFT JOIN decisions d ON d.run = h.run AND d.handoff_id = h.id
WHERE h.run = %(run)s AND (%(ids)s::text[] IS NULL OR h.id = ANY(%(ids)s::text[]))
GROUP BY h.run, h.seq
ORDER BY h.seq
"""

T = TypeVar("T")
Conn = psycopg.Connection[tuple[Any, ...]]


class StoreRefused(PermissionError):
    """The database refused a write (a role without the privilege, a broken rule)."""


def validate_run_id(run: str) -> str:
    if not isinstance(run, str) or not RUN_ID_PATTERN.match(run):
        raise ValueError(f"not a run id: {run!r} (letters, digits, '.', '_', '-'; max 200)")
    return run


def _slot(principal: str | None) -> str:
    if principal is None:
        return UNSIGNED
    if not PRINCIPAL_PATTERN.match(principal):
        raise ValueError(f"not a principal name: {principal!r}")
    return principal


@dataclass(slots=True)
class _ReadAhead:
    """What a waiting store read with a handoff's decisions (``_DECIDED``), each used once."""

    run: str
    handoff_id: str
    handoff: bytes | None = None
    last: tuple[Any, ...] | None = None
    has_last: bool = False


def _next_line(
    last: tuple[Any, ...] | None, event: Mapping[str, Any]
) -> tuple[int, bytes, dict[str, Any]]:
    number, previous = (0, None) if last is None else (int(last[0]), bytes(last[1]))
    line, record = chained_line(previous, event)
    return number + 1, line, record


def _lost(exc: psycopg.OperationalError) -> StoreUnavailable:
    return StoreUnavailable(
        f"store connection lost during a write, which may or may not have been saved: "
        f"{one_line(exc)}"
    )


def _millis(seconds: float) -> str:
    """A bound as PostgreSQL's ``lock_timeout`` takes it (never 0, which means none)."""
    return f"{max(1, round(seconds * 1000))}ms"


class PostgresStore:
    """One lazily opened connection per store object; ``watch`` and wake-ups LISTEN on
    connections of their own (``pg_hints``)."""

    run_noun = "database run"

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        self.url = url
        self._timeout = connect_timeout
        self._db: Conn | None = None
        self._ahead: _ReadAhead | None = None
        #: A wait subscribed through this store: read decisions with ``_DECIDED``.
        self._waited = False

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            db.close()

    def copy(self) -> PostgresStore:
        return PostgresStore(self.url, connect_timeout=self._timeout)

    def label(self) -> str:
        """Never the user or password the URL may carry."""
        try:
            parts = urlsplit(self.url)
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            return "postgresql database"
        if not parts.scheme:
            return "postgresql database"
        return f"postgresql://{parts.hostname or 'localhost'}{port}{parts.path or '/'}"

    def run_name(self, run: str) -> str:
        return validate_run_id(run)

    def run_label(self, run: str) -> str:
        return validate_run_id(run)

    def _connection(self) -> Conn:
        if self._db is not None and not (self._db.closed or self._db.broken):
            return self._db
        if self._db is not None:
            self._db.close()
            self._db = None
        bound = lock_timeout()
        conn = connect(self.url, timeout=self._timeout)
        try:
            conn.execute(
                "SELECT pg_catalog.set_config('lock_timeout', %s, false)",
                (_millis(bound),),
            )
            require_schema(conn)
        except psycopg.Error as exc:
            conn.close()
            raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None
        except BaseException:
            conn.close()
            raise
        self._db = conn
        return conn

    def _read(
        self,
        query: str,
        params: tuple[Any, ...] | Mapping[str, Any],
        *,
        prepare: bool | None = None,
    ) -> list[tuple[Any, ...]]:
        """Retried once on a fresh connection if the old one died. ``prepare=True``: a
        query whose planning costs more than running it is planned once per connection."""
        for attempt in (1, 2):
            conn = self._connection()
            try:
                return conn.execute(query, params, prepare=prepare).fetchall()
            except psycopg.OperationalError as exc:
                if attempt == 2 or not conn.broken:
                    raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None
            except psycopg.Error as exc:
                raise StoreRefused(f"the store refused a read: {one_line(exc)}") from None
        raise AssertionError("unreachable")

    def _write(self, run: str, work: Callable[[Conn], T]) -> T:
        """Run ``work`` in one transaction holding the run's lock. A connection that died
        while idle fails at the lock, before anything is written, so only then is it
        tried again; a failure after it leaves the outcome unknown."""
        for attempt in (1, 2):
            conn = self._connection()
            locked = False
            try:
                with conn.transaction():
                    if deadline_left() is not None:  # a caller's deadline: this write's bound
                        conn.execute(
                            "SELECT pg_catalog.set_config('lock_timeout', %s, true)",
                            (_millis(lock_timeout()),),
                        )
                    lock_run(conn, run)
                    locked = True
                    return work(conn)
            except errors.LockNotAvailable:
                raise self._held(conn, run) from None
            except psycopg.OperationalError as exc:
                if locked:
                    raise _lost(exc) from None
                if attempt == 2 or not conn.broken:
                    raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None
            except (errors.UniqueViolation, errors.ForeignKeyViolation):
                raise  # the caller knows what these mean for its write
            except psycopg.Error as exc:
                raise StoreRefused(f"the database refused the write: {one_line(exc)}") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _held(conn: Conn, run: str) -> LockTimeout:
        """A write that waited past ``lock_timeout`` was rolled back whole."""
        holder = None
        with contextlib.suppress(psycopg.Error):
            holder = run_lock_holder(conn, run)
        held = f" ({holder})" if holder else ""
        return gave_up(
            f"run {run!r} is locked by another database session{held}: its audit lock, "
            "or a row it was writing; nothing was written",
            lock_timeout(),
        )

    def exists(self, run: str) -> bool:
        validate_run_id(run)
        return bool(self._read("SELECT 1 FROM runs WHERE run = %s", (run,)))

    def create(self, run: str) -> bool:
        validate_run_id(run)

        def work(conn: Conn) -> bool:
            added = conn.execute(
                "INSERT INTO runs (run) VALUES (%s) ON CONFLICT DO NOTHING", (run,)
            )
            return added.rowcount == 1

        return self._write(run, work)

    def runs(self) -> list[str]:
        return [row[0] for row in self._read("SELECT run FROM runs ORDER BY run", ())]

    def add_handoff(
        self,
        run: str,
        phase: str,
        envelope: Callable[[int, str], bytes],
        *,
        idempotency_key: str | None = None,
    ) -> StoredHandoff:
        validate_run_id(run)

        def work(conn: Conn) -> StoredHandoff:
            conn.execute("INSERT INTO runs (run) VALUES (%s) ON CONFLICT DO NOTHING", (run,))
            if idempotency_key is not None:
                row = conn.execute(
                    "SELECT id, seq FROM handoffs WHERE run = %s AND idempotency_key = %s",
                    (run, idempotency_key),
                ).fetchone()
                if row is not None:
                    return StoredHandoff(row[0], row[1], False)
            row = conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM handoffs WHERE run = %s", (run,)
            ).fetchone()
            assert row is not None
            seq = int(row[0])
            handoff_id = validate_id(f"{seq:04d}-{phase}")
            data = envelope(seq, handoff_id)
            conn.execute(
                "INSERT INTO handoffs (run, seq, id, phase, data, sha256, idempotency_key) "
                "VALUES (%s, %s, %s, %s, %s, encode(sha256(%s), 'hex'), %s)",
                (run, seq, handoff_id, phase, data, data, idempotency_key),
            )
            return StoredHandoff(handoff_id, seq, True)

        return self._write(run, work)

    def handoff_ids(self, run: str) -> list[str]:
        validate_run_id(run)
        rows = self._read("SELECT id FROM handoffs WHERE run = %s ORDER BY seq", (run,))
        return [row[0] for row in rows]

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        """The size is checked in the database: an oversize handoff is never transferred."""
        validate_run_id(run)
        validate_id(handoff_id)
        ahead = self._ahead
        if ahead is not None and ahead.handoff is not None and ahead.run == run:
            data, ahead.handoff = ahead.handoff, None
            if ahead.handoff_id == handoff_id and len(data) <= max_bytes:
                return data
        rows = self._read(
            "SELECT octet_length(data), CASE WHEN octet_length(data) <= %s THEN data END "
            "FROM handoffs WHERE run = %s AND id = %s",
            (max_bytes, run, handoff_id),
        )
        if not rows:
            raise FileNotFoundError(f"no handoff {handoff_id} in run {run}")
        size, data = rows[0]
        if data is None:
            raise OversizeError(int(size), max_bytes)
        return bytes(data)

    def handoff_sha256(self, run: str, handoff_id: str) -> str:
        """Computed by the server: the bytes are never transferred."""
        validate_run_id(run)
        validate_id(handoff_id)
        try:
            rows = self._read(
                "SELECT encode(sha256(data), 'hex') FROM handoffs WHERE run = %s AND id = %s",
                (run, handoff_id),
            )
        except OSError:
            return ""
        return str(rows[0][0]) if rows else ""

    def add_contract(
        self, run: str, schema_id: str, sha256: str, document: bytes, *, added: str
    ) -> bool:
        """A contract id is its key within a run: of two writers of one id exactly one
        inserts, and the other compares digests."""
        validate_run_id(run)
        fs_contracts.checked(schema_id, sha256)

        def work(conn: Conn) -> bool:
            conn.execute("INSERT INTO runs (run) VALUES (%s) ON CONFLICT DO NOTHING", (run,))
            inserted = conn.execute(
                "INSERT INTO contracts (run, schema_id, sha256, kind, document, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s::timestamptz) "
                "ON CONFLICT (run, schema_id) DO NOTHING",
                (run, schema_id, sha256, fs_contracts.KIND_JSON_SCHEMA, document, added),
            )
            if inserted.rowcount == 1:
                return True
            row = conn.execute(
                "SELECT sha256 FROM contracts WHERE run = %s AND schema_id = %s", (run, schema_id)
            ).fetchone()
            stored = str(row[0]) if row is not None else "(unreadable)"
            if stored != sha256:
                raise ContractConflict(schema_id, stored, sha256)
            return False

        return self._write(run, work)

    def contracts(self, run: str) -> list[StoredContract]:
        validate_run_id(run)
        return [StoredContract(*map(str, row)) for row in self._read(_CONTRACTS, (run,))]

    def contract_document(self, run: str, sha256: str) -> bytes | None:
        """Any id of the run naming the digest serves."""
        validate_run_id(run)
        rows = self._read(
            "SELECT document FROM contracts WHERE run = %s AND sha256 = %s LIMIT 1", (run, sha256)
        )
        return bytes(rows[0][0]) if rows else None

    def create_decision(
        self,
        run: str,
        handoff_id: str,
        principal: str | None,
        data: bytes,
        event: Mapping[str, Any],
    ) -> dict[str, Any]:
        return self._create_logged(
            run,
            handoff_id,
            "INSERT INTO decisions (run, handoff_id, principal, data) VALUES (%s, %s, %s, %s)",
            (run, handoff_id, _slot(principal), data),
            event,
            DecisionExists(f"{handoff_id} is already decided"),
        )

    def _create_logged(
        self,
        run: str,
        handoff_id: str,
        insert: str,
        params: tuple[Any, ...],
        event: Mapping[str, Any],
        exists: FileExistsError,
    ) -> dict[str, Any]:
        """The record's row and its audit event commit together or not at all; of two
        racing writers the second's insert fails on the table's key (``exists``)."""
        validate_run_id(run)
        validate_id(handoff_id)

        def work(conn: Conn) -> dict[str, Any]:
            conn.execute(insert, params)
            return self._append(conn, run, event)

        try:
            return self._write(run, work)
        except errors.UniqueViolation:
            raise exists from None
        except errors.ForeignKeyViolation:
            raise FileNotFoundError(f"no handoff {handoff_id} in run {run}") from None

    def _record(self, query: str, run: str, handoff_id: str) -> bytes | None:
        validate_run_id(run)
        validate_id(handoff_id)
        rows = self._read(query, (run, handoff_id))
        return bytes(rows[0][0]) if rows else None

    def decided_ids(self, run: str) -> list[str]:
        validate_run_id(run)
        rows = self._read(
            "SELECT DISTINCT d.handoff_id, h.seq FROM decisions d JOIN handoffs h "
            "ON h.run = d.run AND h.id = d.handoff_id WHERE d.run = %s ORDER BY h.seq",
            (run,),
        )
        return [str(row[0]) for row in rows]

    def create_withdrawal(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        return self._create_logged(
            run,
            handoff_id,
            "INSERT INTO withdrawals (run, handoff_id, data) VALUES (%s, %s, %s)",
            (run, handoff_id, data),
            event,
            WithdrawalExists(f"{handoff_id} is already withdrawn"),
        )

    def withdrawal_record(self, run: str, handoff_id: str) -> bytes | None:
        return self._record(_WITHDRAWAL, run, handoff_id)

    def create_delivery(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        return self._create_logged(
            run,
            handoff_id,
            "INSERT INTO deliveries (run, handoff_id, data) VALUES (%s, %s, %s)",
            (run, handoff_id, data),
            event,
            DeliveryExists(f"{handoff_id} was delivered already"),
        )

    def delivery_record(self, run: str, handoff_id: str) -> bytes | None:
        return self._record(_DELIVERY, run, handoff_id)

    def decision_records(self, run: str, handoff_id: str) -> dict[str | None, bytes]:
        """A store a wait subscribed through reads ahead (``_DECIDED``): the handoff for
        the next ``handoff_bytes``, the last audit line for the next ``append_event``'s
        first try, which its insert checks."""
        validate_run_id(run)
        validate_id(handoff_id)
        self._ahead = None
        if not self._waited:
            rows = self._read(
                "SELECT 0, principal, data FROM decisions WHERE run = %s AND handoff_id = %s "
                "ORDER BY principal",
                (run, handoff_id),
            )
        else:
            params = {"run": run, "id": handoff_id, "max": MAX_HANDOFF_BYTES}
            rows = self._read(_DECIDED, params, prepare=True)
        records: dict[str | None, bytes] = {}
        ahead = _ReadAhead(run, handoff_id, has_last=self._waited and bool(rows))
        for part, name, data in rows:
            if part == 0:
                records[None if name == UNSIGNED else name] = bytes(data)
            elif part == 1:
                ahead.handoff = None if data is None else bytes(data)
            else:
                ahead.last = (name, data)
        self._ahead = ahead if ahead.has_last else None
        return records

    def create_edit(self, run: str, handoff_id: str, data: bytes) -> str:
        validate_run_id(run)
        validate_id(handoff_id)

        def work(conn: Conn) -> None:
            conn.execute(
                "INSERT INTO edits (run, handoff_id, data, sha256) "
                "VALUES (%s, %s, %s, encode(sha256(%s), 'hex')) ON CONFLICT DO NOTHING",
                (run, handoff_id, data, data),
            )

        try:
            self._write(run, work)
        except errors.ForeignKeyViolation:
            raise FileNotFoundError(f"no handoff {handoff_id} in run {run}") from None
        return hashlib.sha256(data).hexdigest()

    def edit_bytes(self, run: str, handoff_id: str, sha256: str, max_bytes: int) -> bytes:
        validate_run_id(run)
        validate_id(handoff_id)
        rows = self._read(
            "SELECT octet_length(data), CASE WHEN octet_length(data) <= %s THEN data END "
            "FROM edits WHERE run = %s AND handoff_id = %s AND sha256 = %s",
            (max_bytes, run, handoff_id, sha256),
        )
        if not rows:
            raise FileNotFoundError(f"no edit {sha256[:12]} of {handoff_id} in run {run}")
        size, data = rows[0]
        if data is None:
            raise OversizeError(int(size), max_bytes)
        if hashlib.sha256(bytes(data)).hexdigest() != sha256:
            raise OSError(f"the edit {sha256[:12]} of {handoff_id} does not hash to its name")
        return bytes(data)

    def append_event(self, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """Two round trips without a race: read the last line, then insert the next in one
        statement that takes the run's lock (``insert_event``); a writer in between makes
        it fail and the line is chained again, until ``_APPEND_TRIES``."""
        validate_run_id(run)
        ahead, self._ahead = self._ahead, None
        try:
            for _ in range(_APPEND_TRIES):
                if ahead is not None and ahead.run == run and ahead.has_last:
                    last, ahead = ahead.last, None
                else:
                    rows = self._read(_LAST_EVENT, (run,))
                    last = rows[0] if rows else None
                number, line, record = _next_line(last, event)
                if self._insert_event(run, number, line):
                    return record
            return self._write(run, lambda conn: self._append(conn, run, event))
        except errors.ForeignKeyViolation:
            raise RunMissing(f"no run {run!r} in the store") from None

    def _insert_event(self, run: str, number: int, line: bytes) -> bool:
        """``False`` when another writer took its number. It follows a read on the same
        connection, so a failure here leaves the outcome unknown."""
        conn = self._connection()
        try:
            insert_event(conn, run, number, line)
        except (errors.CheckViolation, errors.UniqueViolation):
            return False
        except errors.ForeignKeyViolation:
            raise
        except errors.LockNotAvailable:
            raise self._held(conn, run) from None
        except psycopg.OperationalError as exc:
            raise _lost(exc) from None
        except psycopg.Error as exc:
            raise StoreRefused(f"the database refused the write: {one_line(exc)}") from None
        return True

    @staticmethod
    def _append(conn: Conn, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """The caller holds the run's lock."""
        number, line, record = _next_line(conn.execute(_LAST_EVENT, (run,)).fetchone(), event)
        conn.execute("INSERT INTO events (run, n, line) VALUES (%s, %s, %s)", (run, number, line))
        return record

    def log_chunks(self, run: str) -> Iterator[bytes]:
        """Paged, a long row in pieces: a reader holds a bounded amount whatever a role
        inserted."""
        validate_run_id(run)
        after = 0
        while True:
            rows = self._read(
                _LOG_PAGE, {"run": run, "after": after, "piece": _PIECE, "rows": _PAGE_ROWS}
            )
            for number, size, line in rows:
                if line is not None:
                    yield bytes(line) + b"\n"
                else:
                    for start in range(1, int(size) + 1, _PIECE):
                        piece = self._read(_LOG_PIECE, (start, _PIECE, run, number))
                        yield bytes(piece[0][0]) if piece else b""
                    yield b"\n"
                after = int(number)
            if len(rows) < _PAGE_ROWS:
                return

    def subscribe(
        self,
        run: str,
        handoff_id: str,
        wake: Callable[[], None],
        *,
        signed: bool,
        poll: bool = False,
    ) -> Subscription:
        """``signed`` and ``poll`` change nothing: every notice about the run wakes."""
        validate_run_id(run)
        validate_id(handoff_id)
        self._waited = True
        return RunWakes(self.url, run, wake)

    def listing(self, run: str, handoff_ids: Collection[str] | None = None) -> list[ListedHandoff]:
        if not isinstance(run, str) or not RUN_ID_PATTERN.match(run):
            return []
        ids = None
        if handoff_ids is not None:
            ids = sorted(i for i in handoff_ids if isinstance(i, str) and ID_PATTERN.match(i))
            if not ids:
                return []
        rows = self._read(_LISTING, {"run": run, "ids": ids}, prepare=True)
        return [
            ListedHandoff(
                handoff_id,
                (int(created) * 1000, int(size), int(seq)),
                (int(last) * 1000, int(count), 0) if count else None,
            )
            for handoff_id, seq, size, created, count, last in rows
        ]

    def watch(
        self,
        on_change: Callable[[Change | WatchLapse], None],
        stop: threading.Event,
        *,
        poll: bool = False,
    ) -> None:
        """``poll`` changes nothing: notifications need no change events."""
        watch_store(self.url, on_change, stop)

    def waiting(self, run: str, handoff_id: str, started: str) -> AbstractContextManager[object]:
        """This session holds the handoff's waiter lock (``hold_waiter``), which the
        server drops with the session: a killed waiter, or one whose connection is lost,
        reads as gone at once, which refuses approvals rather than allow one nobody takes."""
        validate_run_id(run)
        validate_id(handoff_id)
        return self._waiting(run, handoff_id)

    @contextlib.contextmanager
    def _waiting(self, run: str, handoff_id: str) -> Iterator[None]:
        conn = self._connection()
        try:
            hold_waiter(conn, run, handoff_id)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None
        try:
            yield
        finally:
            if conn is self._db and not (conn.closed or conn.broken):
                with contextlib.suppress(psycopg.Error):
                    release_waiter(conn, run, handoff_id)

    def waiters(
        self, run: str, handoff_ids: Collection[str] | None = None
    ) -> dict[str, tuple[WaiterRecord, ...]] | None:
        """The sessions holding each waiter lock (``started`` is ``unknown`` where the
        role may not see it)."""
        if not isinstance(run, str) or not RUN_ID_PATTERN.match(run):
            return {}
        ids = None
        if handoff_ids is not None:
            ids = sorted(i for i in handoff_ids if isinstance(i, str) and ID_PATTERN.match(i))
            if not ids:
                return {}
        found: dict[str, list[WaiterRecord]] = {}
        for handoff_id, pid, started in self._read(LIVE_WAITERS, {"run": run, "ids": ids}):
            found.setdefault(handoff_id, []).append(WaiterRecord(int(pid), started or "unknown"))
        return {handoff_id: tuple(records) for handoff_id, records in found.items()}
