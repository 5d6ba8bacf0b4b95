"""Fixtures shared by every test folder: a real PostgreSQL server, started on first use.

``pg_server`` (session) is one throwaway cluster (see ``pg_server.py``); ``pg_url``
(function) is a fresh empty database on it, as a libpq URL for the superuser. Where the
server binaries are missing the tests that ask for them are skipped, except under CI
(``CI`` set), where that is a failure: a CI run must not go green by testing nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from pg_server import PgServer, PgUnavailable


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        server = PgServer.create()
    except PgUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs a PostgreSQL server: {exc}")
        pytest.skip(str(exc))
    try:
        yield server
    finally:
        server.destroy()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    return pg_server.url(pg_server.create_database())
