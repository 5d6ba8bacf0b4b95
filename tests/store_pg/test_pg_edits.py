"""The ``edits`` table: a reviewer may keep an edited payload, the pipeline may not, the
database checks each row's sha256, and no row is ever changed or removed."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg
import pytest
from pg_rows import add_handoff, add_run
from psycopg import errors
from psycopg.conninfo import make_conninfo

from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import PIPELINE_ROLE, REVIEWER_ROLE

EDIT = b'{"risks": []}\n'
INSERT = "INSERT INTO edits (run, handoff_id, data, sha256) VALUES (%s, %s, %s, %s)"


def _url(conn: psycopg.Connection[Any], role: str) -> str:
    return make_conninfo(conn.info.dsn, user=role)


def test_only_a_reviewer_keeps_edits_and_their_digest_is_checked(
    schema_db: psycopg.Connection[Any],
) -> None:
    hid = add_handoff(schema_db, add_run(schema_db))
    digest = hashlib.sha256(EDIT).hexdigest()
    with PostgresStore(_url(schema_db, REVIEWER_ROLE)) as reviewer:
        assert reviewer.create_edit("run-1", hid, EDIT) == digest
        assert reviewer.edit_bytes("run-1", hid, digest, 100) == EDIT
    with psycopg.connect(_url(schema_db, PIPELINE_ROLE), autocommit=True) as pipeline:
        with pytest.raises(errors.InsufficientPrivilege):
            pipeline.execute(INSERT, ("run-1", hid, b"{}", hashlib.sha256(b"{}").hexdigest()))
        assert pipeline.execute("SELECT sha256 FROM edits").fetchall() == [(digest,)]
    with pytest.raises(errors.CheckViolation):
        schema_db.execute(INSERT, ("run-1", hid, b"{}", digest))
    for change in ("UPDATE edits SET data = 'x'", "DELETE FROM edits", "TRUNCATE edits"):
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            schema_db.execute(change)
