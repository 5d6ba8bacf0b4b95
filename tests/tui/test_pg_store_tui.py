"""The TUI over a real PostgreSQL store: every run in the store is listed, a handoff
submitted from elsewhere appears (woken by LISTEN/NOTIFY), and approving from the TUI
writes the decision into the store. Runs are keyed by ``Path(run_id)``."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from tui_helpers import PLAN, SIZE, all_inspected, raised, review_app, screen_text, settle

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.screens.approve import ApproveScreen


def _put(store: PostgresStore, run: str) -> str:
    data = json.dumps(PLAN).encode()
    return submit(run, data, phase="plan", schema_id="plan/v1", store=store).id


async def test_runs_in_the_store_are_listed_new_ones_appear_and_approve_writes_there(
    pg_url: str, registry: Registry
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    with PostgresStore(pg_url) as pipeline:
        first = _put(pipeline, "alpha")
        app = review_app(None, registry, reviewer="alice", quiet=True, store=PostgresStore(pg_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all_inspected(app))
            assert set(app.review.entries) == {(Path("alpha"), first)}
            top = screen_text(app).splitlines()[0]
            assert "postgresql://" in top and "with a waiter" not in top
            second = _put(pipeline, "beta")
            key = (Path("beta"), second)
            await settle(pilot, lambda: key in app.review.entries and all_inspected(app))
            assert app.review.entries[key].state is HandoffState.PENDING
            app.review.jump_to(key)
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
            await pilot.press("y")
            await settle(pilot, lambda: app.review.entries[key].state is HandoffState.APPROVED)
        records = pipeline.decision_records("beta", second)
        assert set(records) == {None}
        assert json.loads(records[None])["reviewer"] == "alice"
        assert pipeline.decision_records("alpha", first) == {}


async def test_a_lost_connection_is_reported_and_everything_is_read_again(
    pg_url: str, registry: Registry
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    with PostgresStore(pg_url) as pipeline:
        handoff = _put(pipeline, "alpha")
        app = review_app(None, registry, reviewer="alice", quiet=True, store=PostgresStore(pg_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all_inspected(app))
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'handoff-gate' AND pid <> pg_backend_pid()"
                )
            await settle(pilot, lambda: any(n.title == "Watcher" for n in raised(app)))
            decide("alpha", handoff, "reject", reason="no", registry=registry, store=pipeline)
            key = (Path("alpha"), handoff)
            await settle(pilot, lambda: app.review.entries[key].state is HandoffState.REJECTED)


async def test_a_hostile_notification_is_only_a_hint(pg_url: str, registry: Registry) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    with PostgresStore(pg_url) as pipeline:
        handoff = _put(pipeline, "alpha")
        app = review_app(None, registry, reviewer="alice", quiet=True, store=PostgresStore(pg_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all_inspected(app))
            with psycopg.connect(pg_url, autocommit=True) as admin:
                for payload in ('{"run": "\x1b]0;x\x07", "handoff": "../../x"}', "not json"):
                    admin.execute("SELECT pg_notify('handoff_gate', %s)", (payload,))
                admin.execute(
                    "SELECT pg_notify('handoff_gate', %s)",
                    ('{"run": "alpha", "handoff": "9999-ghost"}',),
                )
            await pilot.pause(0.5)
            assert set(app.review.entries) == {(Path("alpha"), handoff)}
            assert app.is_running and "\x1b" not in screen_text(app)
