"""The title names a database store by host and database, never by its credentials."""

from __future__ import annotations

from handoff_gate.gates.store.postgres import PostgresStore


def test_the_label_keeps_host_and_database_and_drops_credentials() -> None:
    label = PostgresStore("postgresql://reviewer:s3cret@db.example:5433/gate").label()
    assert label == "postgresql://db.example:5433/gate"


def test_a_key_value_or_broken_url_gets_a_plain_label() -> None:
    for url in ("host=db dbname=gate password=s3cret", "postgresql://h:notaport/x"):
        assert PostgresStore(url).label() == "postgresql database"
