"""Fixtures shared by every test folder: a real PostgreSQL server, started on first use.

``pg_server`` (session) is one throwaway cluster (see ``pg_server.py``); ``pg_url``
(function) is a fresh empty database on it, as a libpq URL for the superuser, dropped
after the test. Where the server binaries are missing the tests that ask for them are
skipped, except under CI (``CI`` set), where that is a failure: a CI run must not go green
by testing nothing.
``place`` runs a test once on a run folder and once on a database run.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Generator, Iterator
from pathlib import Path

import psycopg
import pytest
from checkout import checkout_package
from notify_endpoint import Endpoint
from pg_server import PgServer, PgUnavailable
from store_place import Place

from handoff_gate.gates.store.postgres_schema import init_schema


def pytest_configure(config: pytest.Config) -> None:
    """``bench`` for the tests that drive it, without the checkout's root on the path."""
    checkout_package("bench")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Collection runs without the cyclic garbage collector, and what it built is frozen
    out of the collector's sight afterwards. Every pytest process that runs tests (each xdist
    worker) collects every test module, and collecting allocates what is never
    garbage (modules, functions, the test items), so the collector's passes over that
    growing heap were about 3 of the 7.5 CPU-s a collection costs, in each process. One
    full collection at the end frees collection's cyclic garbage (and runs its finalizers)
    as before; frozen, what survives it is not scanned again by the collections that run
    during the tests."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        gc.collect()
        gc.freeze()
        if was_enabled:
            gc.enable()


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
def pg_url(pg_server: PgServer) -> Iterator[str]:
    name = pg_server.create_database()
    yield pg_server.url(name)
    pg_server.drop_database(name)


@pytest.fixture(params=["fs", "pg"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Place]:
    if request.param == "fs":
        yield Place(str(tmp_path), str(tmp_path / "job"), ())
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    yield Place(url, "job", ("--store", url))


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    """A real JSON webhook on 127.0.0.1 (``notify_endpoint``), closed after the test."""
    server = Endpoint()
    try:
        yield server
    finally:
        server.close()
