"""The PostgreSQL store's contracts table: the queries behind ``PostgresStore``'s
``add_contract``, ``contracts`` and ``contract_document``.

A contract id is the table's key within a run, so of two writers of one id exactly one
inserts (``ON CONFLICT DO NOTHING``, under the run's lock) and the other finds the row
and compares digests; rows are append-only (``postgres_schema``'s version 3).
"""

from __future__ import annotations

import re
from typing import Any

from psycopg import Connection

from handoff_gate.gates.store.base import ContractConflict, StoredContract
from handoff_gate.gates.vocab.ids import SCHEMA_ID_PATTERN

KIND_JSON_SCHEMA = "json-schema"
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")

#: The contracts of a run as ``contracts`` lists them.
LIST_QUERY = (
    "SELECT schema_id, sha256, kind, "
    "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
    "FROM contracts WHERE run = %s ORDER BY schema_id"
)
#: One document by digest (any id of the run naming it serves).
DOCUMENT_QUERY = "SELECT document FROM contracts WHERE run = %s AND sha256 = %s LIMIT 1"


def checked(schema_id: str, sha256: str) -> None:
    """Refuse, before any query, what the table's checks would refuse less clearly."""
    if not SCHEMA_ID_PATTERN.match(schema_id):
        raise ValueError(f"contract id {schema_id!r} is not of the form 'name/v1'")
    if not _SHA256.match(sha256):
        raise ValueError(f"not a sha256 digest: {sha256!r}")


def insert(
    conn: Connection[Any], run: str, schema_id: str, sha256: str, document: bytes, added: str
) -> bool:
    """Add the row (and the run); ``False`` for the same digest again, ``ContractConflict``
    for another. Runs inside the caller's transaction holding the run's lock."""
    conn.execute("INSERT INTO runs (run) VALUES (%s) ON CONFLICT DO NOTHING", (run,))
    inserted = conn.execute(
        "INSERT INTO contracts (run, schema_id, sha256, kind, document, created_at) "
        "VALUES (%s, %s, %s, %s, %s, %s::timestamptz) ON CONFLICT (run, schema_id) DO NOTHING",
        (run, schema_id, sha256, KIND_JSON_SCHEMA, document, added),
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


def listed(rows: list[tuple[Any, ...]]) -> list[StoredContract]:
    """Rows of ``LIST_QUERY`` as records."""
    return [StoredContract(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]
