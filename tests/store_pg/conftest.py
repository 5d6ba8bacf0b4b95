"""A connection to a fresh database holding the schema, for the PostgreSQL store tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from handoff_gate.gates.store.postgres_schema import init_schema


@pytest.fixture
def schema_db(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit superuser connection to a fresh database with the schema and roles."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=True)
        yield conn
