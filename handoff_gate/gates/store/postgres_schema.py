"""The PostgreSQL schema of the run store: versioned migrations and the two service roles.

The database enforces what the filesystem store enforces with exclusive file creation, so
that a bug or a hostile client holding a connection cannot bend the rules:

* every handoff keeps the exact envelope bytes with their sha256, checked by the database;
* one decision per principal per handoff is a UNIQUE constraint, so racing writers get
  exactly one winner without any check-then-insert;
* handoffs, decisions, edits, events and runs are append-only: triggers refuse UPDATE, DELETE and
  TRUNCATE for every role, the table owner included (only ``ALTER TABLE ... DISABLE
  TRIGGER`` by the owner or a superuser gets past them, which is the owner's own act);
* audit events are numbered 1, 2, 3... per run with no gap or fork, so the hash chain the
  application writes stays linear (writers take :func:`lock_run` first);
* inserting a handoff or a decision sends a ``NOTIFY`` on :data:`CHANNEL`, a hint for
  waiters to re-read, never a substitute for the read.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql

from handoff_gate.gates.store.base import StoreError

#: The ``LISTEN``/``NOTIFY`` channel the insert triggers publish on.
CHANNEL = "handoff_gate"
#: May add runs, handoffs and events and read everything; may not decide.
PIPELINE_ROLE = "handoff_gate_pipeline"
#: May add decisions and events and read everything; may not submit handoffs.
REVIEWER_ROLE = "handoff_gate_reviewer"
#: Key of the transaction-scoped advisory lock that serialises migrations (any constant
#: works; this one is "hg-schem" in ASCII, unlikely to collide with another application).
_SCHEMA_LOCK = 0x68672D736368656D
#: First key of the two-key advisory lock that serialises event appends per run; the second
#: key is ``hashtext(run)``. Two-key locks live apart from the one-key schema lock.
_RUN_LOCK_CLASS = 0x6867

_META = """
CREATE TABLE IF NOT EXISTS handoff_gate_meta (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version integer NOT NULL CHECK (version >= 0)
)
"""

_APPEND_ONLY = ("runs", "handoffs", "decisions", "events")

_V1: tuple[str, ...] = (
    r"""
    CREATE FUNCTION handoff_gate_refuse_change() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
        RAISE EXCEPTION 'handoff-gate: % is append-only (% refused)', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END $$
    """,
    *(
        rf"""
        CREATE FUNCTION handoff_gate_notify_{kind}() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', json_build_object(
                'run', NEW.run, 'handoff', NEW.{column}, 'kind', '{kind}'
            )::text);
            RETURN NULL;
        END $$
        """
        for kind, column in (("handoff", "id"), ("decision", "handoff_id"))
    ),
    r"""
    CREATE FUNCTION handoff_gate_next_event() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
        last bigint;
    BEGIN
        SELECT max(n) INTO last FROM events WHERE run = NEW.run;
        IF NEW.n <> coalesce(last, 0) + 1 THEN
            RAISE EXCEPTION 'handoff-gate: event % of run % is not next after %',
                NEW.n, NEW.run, coalesce(last, 0)
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    r"""
    CREATE TABLE runs (
        run text PRIMARY KEY CHECK (run ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$'),
        created_at timestamptz NOT NULL DEFAULT now()
    )
    """,
    r"""
    CREATE TABLE handoffs (
        run text NOT NULL REFERENCES runs (run),
        seq integer NOT NULL CHECK (seq >= 1),
        id text NOT NULL CHECK (
            id = lpad(seq::text, greatest(4, length(seq::text)), '0') || '-' || phase
        ),
        phase text NOT NULL CHECK (phase ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
        data bytea NOT NULL,
        sha256 text NOT NULL CHECK (sha256 = encode(sha256(data), 'hex')),
        idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run, seq),
        UNIQUE (run, id),
        UNIQUE (run, idempotency_key)
    )
    """,
    r"""
    CREATE TABLE decisions (
        run text NOT NULL,
        handoff_id text NOT NULL,
        principal text NOT NULL CHECK (principal ~ '^[^[:cntrl:]]{1,200}$'),
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run, handoff_id, principal),
        FOREIGN KEY (run, handoff_id) REFERENCES handoffs (run, id)
    )
    """,
    r"""
    CREATE TABLE events (
        run text NOT NULL REFERENCES runs (run),
        n bigint NOT NULL CHECK (n >= 1),
        line bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run, n)
    )
    """,
    """
    CREATE TRIGGER events_next BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION handoff_gate_next_event()
    """,
    *(
        f"""
        CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION handoff_gate_refuse_change()
        """
        for table in _APPEND_ONLY
    ),
    *(
        f"""
        CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION handoff_gate_refuse_change()
        """
        for table in _APPEND_ONLY
    ),
    *(
        f"""
        CREATE TRIGGER {kind}s_notify AFTER INSERT ON {kind}s
        FOR EACH ROW EXECUTE FUNCTION handoff_gate_notify_{kind}()
        """
        for kind in ("handoff", "decision")
    ),
)


def _in_schema(statement: str) -> str:
    """A step running ``statement`` with ``%1$I`` as the migration's schema (quoted as an
    identifier); a ``%`` the statement means literally is written ``%%``."""
    return (
        "DO $migrate$ BEGIN EXECUTE pg_catalog.format($step$"
        f"{statement}"
        "$step$, pg_catalog.current_schema()); END $migrate$"
    )


#: Version 2: the trigger functions immune to ``search_path`` tricks. In version 1 they
#: ran with the ``search_path`` of their creation, and since ``pg_temp`` is searched first
#: when a path does not name it, a role's ``TEMP TABLE events`` was what the numbering
#: trigger read in that role's session: with 2^63-2 in it, the real table took event
#: 2^63-1 and every later append of the run failed ("bigint out of range"). Now each runs
#: with a fixed ``search_path``: ``pg_catalog`` first, so no built-in function or operator
#: can be shadowed, and ``pg_temp`` named last, so temporary objects are never searched
#: first; and each table is named with its schema, so none is looked up by path at all.
_V2: tuple[str, ...] = (
    _in_schema(
        r"""
        CREATE OR REPLACE FUNCTION %1$I.handoff_gate_refuse_change() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $body$
        BEGIN
            RAISE EXCEPTION 'handoff-gate: %% is append-only (%% refused)', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END $body$
        """
    ),
    *(
        _in_schema(
            rf"""
            CREATE OR REPLACE FUNCTION %1$I.handoff_gate_notify_{kind}() RETURNS trigger
            LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $body$
            BEGIN
                PERFORM pg_catalog.pg_notify('{CHANNEL}', pg_catalog.json_build_object(
                    'run', NEW.run, 'handoff', NEW.{column}, 'kind', '{kind}'
                )::text);
                RETURN NULL;
            END $body$
            """
        )
        for kind, column in (("handoff", "id"), ("decision", "handoff_id"))
    ),
    _in_schema(
        r"""
        CREATE OR REPLACE FUNCTION %1$I.handoff_gate_next_event() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $body$
        DECLARE
            last bigint;
        BEGIN
            SELECT pg_catalog.max(e.n) INTO last FROM %1$I.events AS e WHERE e.run = NEW.run;
            IF NEW.n <> coalesce(last, 0) + 1 THEN
                RAISE EXCEPTION 'handoff-gate: event %% of run %% is not next after %%',
                    NEW.n, NEW.run, coalesce(last, 0)
                    USING ERRCODE = 'check_violation';
            END IF;
            RETURN NEW;
        END $body$
        """
    ),
)


def _append_only(table: str) -> tuple[str, str]:
    """The two triggers that refuse UPDATE, DELETE and TRUNCATE of ``table``."""
    return (
        _in_schema(
            f"""
            CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON %1$I.{table}
            FOR EACH ROW EXECUTE FUNCTION %1$I.handoff_gate_refuse_change()
            """
        ),
        _in_schema(
            f"""
            CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON %1$I.{table}
            FOR EACH STATEMENT EXECUTE FUNCTION %1$I.handoff_gate_refuse_change()
            """
        ),
    )


#: Version 3: contracts stored in the run by digest (issue 23). One row per contract id
#: of a run, append-only like the other records; the digest is the application's (of the
#: document's canonical form), so the database checks its shape, and readers check the
#: document against it. Inserting one notifies with the run alone: a reviewer's screen
#: looks at the run again, where a handoff may have waited for it.
_V3: tuple[str, ...] = (
    _in_schema(
        r"""
        CREATE TABLE %1$I.contracts (
            run text NOT NULL REFERENCES %1$I.runs (run),
            schema_id text NOT NULL CHECK (schema_id ~ '^[a-z][a-z0-9_]*/v[0-9]+$'),
            sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            kind text NOT NULL CHECK (kind = 'json-schema'),
            document bytea NOT NULL CHECK (length(document) <= 1048576),
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (run, schema_id)
        )
        """
    ),
    _in_schema(
        rf"""
        CREATE FUNCTION %1$I.handoff_gate_notify_contract() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $body$
        BEGIN
            PERFORM pg_catalog.pg_notify('{CHANNEL}', pg_catalog.json_build_object(
                'run', NEW.run, 'kind', 'contract'
            )::text);
            RETURN NULL;
        END $body$
        """
    ),
    *_append_only("contracts"),
    _in_schema(
        """
        CREATE TRIGGER contracts_notify AFTER INSERT ON %1$I.contracts
        FOR EACH ROW EXECUTE FUNCTION %1$I.handoff_gate_notify_contract()
        """
    ),
)

#: Version 4: reviewers' edited payloads (issue 21), one row per (run, handoff, sha256)
#: with the sha256 checked by the database, append-only like every other table. An
#: approval of an edit names the row by its digest; the same bytes inserted again are the
#: same row.
_V4: tuple[str, ...] = (
    _in_schema(
        r"""
        CREATE TABLE %1$I.edits (
            run text NOT NULL,
            handoff_id text NOT NULL,
            data bytea NOT NULL,
            sha256 text NOT NULL
                CHECK (sha256 = pg_catalog.encode(pg_catalog.sha256(data), 'hex')),
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (run, handoff_id, sha256),
            FOREIGN KEY (run, handoff_id) REFERENCES %1$I.handoffs (run, id)
        )
        """
    ),
    *_append_only("edits"),
)


def _one_per_handoff(table: str) -> tuple[str, ...]:
    """An append-only table holding at most one record per handoff, by its primary key."""
    return (
        _in_schema(
            rf"""
        CREATE TABLE %1$I.{table} (
            run text NOT NULL,
            handoff_id text NOT NULL,
            data bytea NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (run, handoff_id),
            FOREIGN KEY (run, handoff_id) REFERENCES %1$I.handoffs (run, id)
        )
        """
        ),
        *_append_only(table),
    )


#: Version 5: the pipeline's withdrawals, one per handoff (issue 21). Announced as a
#: decision is, so waiters and reviewers see it at once.
WITHDRAWALS = "withdrawals"
_V5: tuple[str, ...] = (
    *_one_per_handoff(WITHDRAWALS),
    _in_schema(
        """
        CREATE TRIGGER withdrawals_notify AFTER INSERT ON %1$I.withdrawals
        FOR EACH ROW EXECUTE FUNCTION %1$I.handoff_gate_notify_decision()
        """
    ),
)

#: Version 6: tool-call deliveries (issue 30), one per handoff, so of two waits racing to
#: deliver one approval exactly one inserts.
DELIVERIES = "deliveries"
_V6 = _one_per_handoff(DELIVERIES)

#: Migration steps by version: applying ``MIGRATIONS[v - 1]`` takes the schema to ``v``.
#: Released steps are never edited; a change is a new version appended at the end.
MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2, _V3, _V4, _V5, _V6)
#: The version this code writes and expects.
LATEST = len(MIGRATIONS)

#: Table privileges per role, on top of SELECT on every table.
_INSERTS = {
    PIPELINE_ROLE: ("runs", "handoffs", "events", "contracts", WITHDRAWALS, DELIVERIES),
    REVIEWER_ROLE: ("decisions", "edits", "events"),
}
_ALL_TABLES = ("handoff_gate_meta", *_APPEND_ONLY, "contracts", "edits", WITHDRAWALS, DELIVERIES)


class SchemaMissing(StoreError):
    """The database lacks the handoff-gate schema, or holds an older version of it."""


class SchemaTooNew(StoreError):
    """The database schema is newer than this handoff-gate: upgrade handoff-gate."""


def schema_version(conn: Connection[Any]) -> int | None:
    """The installed schema version, or ``None`` when the database has no schema at all."""
    row = conn.execute("SELECT to_regclass('handoff_gate_meta') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return None
    row = conn.execute("SELECT version FROM handoff_gate_meta").fetchone()
    return 0 if row is None else int(row[0])


def require_schema(conn: Connection[Any]) -> int:
    """The schema version, refusing a database this code cannot use as it is."""
    version = schema_version(conn)
    if version is None or version < LATEST:
        found = "no handoff-gate schema" if version is None else f"schema version {version}"
        raise SchemaMissing(
            f"database has {found}, this handoff-gate needs version {LATEST}: "
            "run `handoff-gate store init`"
        )
    return _not_too_new(version)


def _not_too_new(version: int) -> int:
    if version > LATEST:
        raise SchemaTooNew(
            f"database schema version {version} is newer than this handoff-gate "
            f"(version {LATEST}): upgrade handoff-gate"
        )
    return version


def init_schema(conn: Connection[Any], *, roles: bool) -> int:
    """Bring the schema to :data:`LATEST` in one transaction under an advisory lock: a
    second caller, on any host, waits and then finds nothing left to do. ``roles``
    creates the two LOGIN roles if absent (no password: see ``pg_hba.conf``) and grants
    their privileges. Call it with no transaction open, so the work is committed."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s::bigint)", (_SCHEMA_LOCK,))
        conn.execute(_META)
        version = _not_too_new(schema_version(conn) or 0)
        for step in (s for steps in MIGRATIONS[version:] for s in steps):
            conn.execute(step)
        conn.execute(
            "INSERT INTO handoff_gate_meta (version) VALUES (%(v)s) "
            "ON CONFLICT (singleton) DO UPDATE SET version = %(v)s",
            {"v": LATEST},
        )
        if roles:
            _grant_roles(conn)
    return LATEST


def _grant_roles(conn: Connection[Any]) -> None:
    """Safe to repeat. Roles are cluster-wide while the schema lock is per database, so
    two databases set up at once can race on ``CREATE ROLE``: the loser's error is swallowed."""
    row = conn.execute(
        "SELECT pg_catalog.current_schema(), pg_catalog.current_database(), "
        "pg_catalog.to_regnamespace('public') IS NOT NULL"
    ).fetchone()
    assert row is not None
    schema = sql.Identifier(row[0])
    for role in (PIPELINE_ROLE, REVIEWER_ROLE):
        conn.execute(
            sql.SQL(
                "DO $$ BEGIN CREATE ROLE {} LOGIN; "
                "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
            ).format(sql.Identifier(role))
        )
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema, sql.Identifier(role)))
        conn.execute(
            sql.SQL("GRANT SELECT ON {} TO {}").format(
                sql.SQL(", ").join(map(sql.Identifier, _ALL_TABLES)), sql.Identifier(role)
            )
        )
        conn.execute(
            sql.SQL("GRANT INSERT ON {} TO {}").format(
                sql.SQL(", ").join(map(sql.Identifier, _INSERTS[role])), sql.Identifier(role)
            )
        )
    _revoke_from_public(conn, row[1], row[0], public=bool(row[2]))


def _revoke_from_public(conn: Connection[Any], database: str, schema: str, *, public: bool) -> None:
    """Take from every role (PUBLIC) what the two roles must not have: temporary tables,
    whose names a session searches before any schema's, and creating objects in the
    store's schema or in ``public`` (a table or function there can shadow another's).
    PUBLIC has TEMPORARY on every new database, and CREATE on ``public`` in one created
    before PostgreSQL 15. This touches the whole database: give the store its own."""
    roles = sql.SQL(", ").join(
        [sql.SQL("PUBLIC"), *map(sql.Identifier, (PIPELINE_ROLE, REVIEWER_ROLE))]
    )
    conn.execute(
        sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(sql.Identifier(database), roles)
    )
    for name in sorted({schema, "public"} if public else {schema}):
        conn.execute(
            sql.SQL("REVOKE CREATE ON SCHEMA {} FROM {}").format(sql.Identifier(name), roles)
        )


def run_lock_holder(conn: Connection[Any], run: str) -> str | None:
    """``pid N, role R``, for the message of a writer that gave up waiting for the lock."""
    row = conn.execute(
        "SELECT l.pid, a.usename FROM pg_catalog.pg_locks AS l "
        "LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
        "AND l.database = (SELECT oid FROM pg_catalog.pg_database "
        "WHERE datname = pg_catalog.current_database()) "
        "AND l.classid = %s::oid AND l.objid = pg_catalog.hashtext(%s)::oid LIMIT 1",
        (_RUN_LOCK_CLASS, run),
    ).fetchone()
    if row is None:
        return None
    return f"pid {row[0]}, role {row[1] or 'unknown'}"


def lock_run(conn: Connection[Any], run: str) -> None:
    """Serialise audit appends for ``run`` until the transaction ends; take it before
    reading the last event, so the chain never forks (a writer that skips it fails the
    numbering check instead)."""
    conn.execute(
        "SELECT pg_catalog.pg_advisory_xact_lock(%s::integer, pg_catalog.hashtext(%s))",
        (_RUN_LOCK_CLASS, run),
    )


def insert_event(conn: Connection[Any], run: str, number: int, line: bytes) -> None:
    """Insert event ``number`` in one autocommit statement that takes the run's lock
    first, so a :func:`lock_run` writer waits for it. If another writer appended since
    the caller read the last line, it fails (``check_violation`` or
    ``unique_violation``), writing nothing."""
    conn.execute(
        "INSERT INTO events (run, n, line) SELECT %s, %s, %s "
        "WHERE pg_catalog.pg_advisory_xact_lock(%s::integer, pg_catalog.hashtext(%s)) IS NOT NULL",
        (run, number, line, _RUN_LOCK_CLASS, run),
    )


#: A waiter's lock key (``hold_waiter``): 64 bits from the schema, run and id, seeded
#: apart from everything else. A run lock (``lock_run``) is a two-number lock, which
#: ``pg_locks`` tells apart by ``objsubid``.
_WAITER_KEY = (
    "pg_catalog.hashtextextended(pg_catalog.current_schema() || '/' || %s || '/' || %s, 1751580791)"
)


def hold_waiter(conn: Connection[Any], run: str, handoff_id: str) -> None:
    """A shared session lock, which the server drops however the session ends: a killed
    waiter leaves nothing behind that reads as alive."""
    conn.execute(
        "SELECT pg_catalog.pg_advisory_lock_shared(" + _WAITER_KEY + ")", (run, handoff_id)
    )


def release_waiter(conn: Connection[Any], run: str, handoff_id: str) -> None:
    conn.execute(
        "SELECT pg_catalog.pg_advisory_unlock_shared(" + _WAITER_KEY + ")", (run, handoff_id)
    )


#: Every live waiter of a run's handoffs (of ``ids``, or all): the sessions holding the
#: handoff's waiter lock (``_WAITER_KEY`` of ``h.run`` and ``h.id``), with when each
#: began (``null`` where the role may not see it).
LIVE_WAITERS = """
SELECT h.id, l.pid, pg_catalog.to_char(a.backend_start AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS"Z"')
FROM handoffs AS h
JOIN pg_catalog.pg_locks AS l
  ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
 AND l.database = (SELECT oid FROM pg_catalog.pg_database
                   WHERE datname = pg_catalog.current_database())
 AND (l.classid::bigint << 32) | l.objid::bigint = pg_catalog.hashtextextended(
     pg_catalog.current_schema() || '/' || h.run || '/' || h.id, 1751580791)
LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid = l.pid
WHERE h.run = %(run)s AND (%(ids)s::text[] IS NULL OR h.id = ANY(%(ids)s::text[]))
ORDER BY h.id, 3, l.pid
"""
