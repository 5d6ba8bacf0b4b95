"""The PostgreSQL store's contracts table: a contract id is its key within a run, so of
two writers of one id exactly one inserts and the other compares digests.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from handoff_gate.gates.store.base import ContractConflict, StoredContract
from handoff_gate.gates.store.fs_contracts import KIND_JSON_SCHEMA

LIST_QUERY = (
    "SELECT schema_id, sha256, kind, "
    "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
    "FROM contracts WHERE run = %s ORDER BY schema_id"
)
#: Any id of the run naming the digest serves.
DOCUMENT_QUERY = "SELECT document FROM contracts WHERE run = %s AND sha256 = %s LIMIT 1"


def insert(
    conn: Connection[Any], run: str, schema_id: str, sha256: str, document: bytes, added: str
) -> bool:
    """``False`` for the same digest again, ``ContractConflict`` for another; the caller
    holds the run's lock."""
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
    return [StoredContract(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]
