"""Notifications of waiting handoffs, sent for real to a JSON webhook on 127.0.0.1.

On both stores: handoffs that arrive together go out as one notification (or two) naming
each once, a handoff waiting at start is one summary, nothing of a payload is ever sent,
and an endpoint that refuses or never answers is a warning while the gate and the
announcer go on. A URL Apprise cannot use stops ``watch`` before it starts (exit 2, one
line, none of the URL's secrets).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli
from notify_endpoint import BOUND, Endpoint, Silent, refused_port
from signed_policy import signed_policy

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.notify.announcement import Waiting, announcement, waiting
from handoff_gate.gates.notify.announcer import GATHER_S, THREAD_PREFIX, Announcer
from handoff_gate.gates.notify.source import EventSource
from handoff_gate.gates.notify.targets import targets
from handoff_gate.gates.standing.standing import standing
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.schemas import example_path

#: In every payload; no notification may carry it.
MARKER = "PAYLOAD-MARKER-5d1c"
PLAN: dict[str, Any] = json.loads(example_path("plan/v1").read_text())


@dataclass(frozen=True)
class Where:
    """The announcer's store and the pipeline's (its own object, as another process's)."""

    store: RunStore
    pipeline: RunStore


@pytest.fixture(params=["fs", "pg"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Where]:
    if request.param == "fs":
        yield Where(FilesystemStore(tmp_path), FilesystemStore(tmp_path))
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    store, pipeline = PostgresStore(url), PostgresStore(url)
    try:
        yield Where(store, pipeline)
    finally:
        store.close()
        pipeline.close()


@pytest.fixture
def registry() -> Registry:
    return load_registry("")


def put(store: RunStore, run: str, registry: Registry, *, blocked: bool = False) -> str:
    """A plan with the marker in it: approvable, or blocked by a key the contract lacks."""
    plan = {**PLAN, "problem_statement": f"{PLAN['problem_statement']} {MARKER}"}
    if blocked:
        plan["smuggled"] = MARKER
    data = json.dumps(plan).encode()
    return submit(
        run,
        data,
        phase="plan",
        schema_id="plan/v1",
        store=store,
        registry=registry,
        from_role="planner",
    ).id


def announcer(
    where: Where, urls: list[str], registry: Registry, warn: Callable[[str], None], gather: float
) -> Announcer:
    events = EventSource(where.store, lambda: registry)
    return Announcer(events, targets(urls), gather=gather, warn=warn)


def named_in(notes: list[dict[str, Any]], handoff_id: str) -> int:
    """How many of ``notes`` name the handoff in their body."""
    return sum(f" {handoff_id}: " in note["message"] for note in notes)


def test_handoffs_arriving_together_are_one_notification_naming_each_once(
    where: Where, endpoint: Endpoint, registry: Registry
) -> None:
    before = put(where.pipeline, "web", registry)
    warnings: list[str] = []
    with announcer(where, [endpoint.url], registry, warnings.append, gather=GATHER_S):
        summary = endpoint.next()
        assert summary["title"] == f"1 handoff waits for a decision in web: {before}"
        ids = [
            put(where.pipeline, "web", registry),
            put(where.pipeline, "web", registry, blocked=True),
            put(where.pipeline, "web", registry),
        ]
        notes = [endpoint.next()]
        while not all(named_in(notes, i) for i in ids):
            notes.append(endpoint.next())
        later = put(where.pipeline, "web", registry)
        last = endpoint.next()
    assert len(notes) <= 2
    assert [named_in(notes, i) for i in ids] == [1, 1, 1]
    if len(notes) == 1:
        assert notes[0]["title"] == f"3 new handoffs in web: {', '.join(ids)}"
    body = "\n".join(n["message"] for n in notes)
    assert f"web / {ids[0]}: phase plan, from planner (unsigned), approvable" in body
    assert f"web / {ids[1]}: phase plan, from planner (unsigned), blocked: unknown_key" in body
    assert last["title"] == f"1 new handoff in web: {later}"
    assert named_in([last], before) == 0 and all(named_in([last], i) == 0 for i in ids)
    assert endpoint.received.empty()
    assert MARKER.encode() not in b"".join(endpoint.raw)
    assert warnings == []
    assert [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)] == []


def test_a_handoff_decided_while_its_notification_gathers_is_left_out(
    where: Where, endpoint: Endpoint, registry: Registry
) -> None:
    before = put(where.pipeline, "web", registry)
    warnings: list[str] = []
    with announcer(where, [endpoint.url], registry, warnings.append, gather=GATHER_S):
        assert named_in([endpoint.next()], before) == 1
        decided = put(where.pipeline, "web", registry)
        left = put(where.pipeline, "web", registry)
        decide("web", decided, "approve", reviewer="bob", registry=registry, store=where.pipeline)
        note = endpoint.next()
    assert note["title"] == f"1 new handoff in web: {left}"
    assert named_in([note], decided) == 0 and warnings == []


def test_an_endpoint_that_refuses_is_a_warning_and_the_gate_and_the_others_go_on(
    where: Where, endpoint: Endpoint, registry: Registry
) -> None:
    dead = f"json://alice:hunter2@127.0.0.1:{refused_port()}/hook-key-93be"
    warned: queue.Queue[str] = queue.Queue()
    with announcer(where, [dead, endpoint.url], registry, warned.put, gather=0.2):
        first = put(where.pipeline, "web", registry)
        assert named_in([endpoint.next()], first) == 1
        warning = warned.get(timeout=BOUND)
        decide("web", first, "approve", reviewer="bob", registry=registry, store=where.pipeline)
        found = standing(where.pipeline, HandoffRef("web", first), registry)
        assert found.state is HandoffState.APPROVED
        second = put(where.pipeline, "web", registry)
        assert named_in([endpoint.next()], second) == 1
        assert warned.get(timeout=BOUND).startswith("a notification to json://alice:")
    assert warning.startswith("a notification to json://alice:")
    assert "127.0.0.1" in warning and "failed" in warning
    assert "hunter2" not in warning and "hook-key-93be" not in warning


def test_an_endpoint_that_never_answers_times_out_as_a_warning(
    tmp_path: Path, endpoint: Endpoint, registry: Registry
) -> None:
    silent = Silent()
    where = Where(FilesystemStore(tmp_path), FilesystemStore(tmp_path))
    slow = f"json://127.0.0.1:{silent.port}/?rto=0.5&cto=0.5"
    warned: queue.Queue[str] = queue.Queue()
    try:
        with announcer(where, [slow, endpoint.url], registry, warned.put, gather=0.2):
            first = put(where.pipeline, "web", registry)
            assert named_in([endpoint.next()], first) == 1
            warning = warned.get(timeout=BOUND)
            decide("web", first, "reject", reason="no", registry=registry, store=where.pipeline)
            second = put(where.pipeline, "web", registry)
            assert named_in([endpoint.next()], second) == 1
    finally:
        silent.close()
    assert warning.startswith(f"a notification to json://127.0.0.1:{silent.port}/ failed: ")


def test_a_producer_s_words_reach_no_chat_as_markup_or_escapes(
    tmp_path: Path, registry: Registry
) -> None:
    store = FilesystemStore(tmp_path)
    role = "\x1b[31m[click](https://evil.example) <!channel> @everyone"
    ref = submit(
        "web",
        json.dumps(PLAN).encode(),
        phase="plan",
        schema_id="plan/v1",
        store=store,
        registry=registry,
        from_role=role,
    )
    line = waiting(standing(store, ref, registry), policy_in_force=False).line()
    producer = line.split("from ", 1)[1]
    assert producer.endswith(" (unsigned), approvable")
    for forbidden in ("\x1b", "[", "]", "<", ">", "@", "https://", "(https"):
        assert forbidden not in producer.removesuffix(" (unsigned), approvable")
    assert "ESC" in producer and "everyone" in producer


def test_a_handoff_naming_no_producer_says_so(tmp_path: Path, registry: Registry) -> None:
    """Without a role, "from unsigned" read as a producer called "unsigned"."""
    store = FilesystemStore(tmp_path)
    ref = submit(
        "web",
        json.dumps(PLAN).encode(),
        phase="plan",
        schema_id="plan/v1",
        store=store,
        registry=registry,
    )
    line = waiting(standing(store, ref, registry), policy_in_force=False).line()
    assert line.startswith(f"web / {ref.id}: phase plan, no producer named (unsigned), ")
    assert "from unsigned" not in line


def test_a_database_connection_lost_mid_watch_loses_no_announcement(
    pg_url: str, endpoint: Endpoint, registry: Registry
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    where = Where(PostgresStore(pg_url), PostgresStore(pg_url))
    warnings: list[str] = []
    try:
        first = put(where.pipeline, "web", registry)
        with announcer(where, [endpoint.url], registry, warnings.append, gather=0.2):
            assert named_in([endpoint.next()], first) == 1
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'handoff-gate' AND pid <> pg_backend_pid()"
                )
            second = put(where.pipeline, "web", registry)
            note = endpoint.next()
    finally:
        where.store.close()
        where.pipeline.close()
    assert note["title"] == f"1 new handoff in web: {second}"
    assert all(w.startswith("notifications: cannot read the store: ") for w in warnings)


def test_under_a_policy_a_producer_is_named_as_its_signature_verifies(
    tmp_path: Path, endpoint: Endpoint, registry: Registry
) -> None:
    trust = signed_policy(tmp_path / "trust", producers=True)
    policy = Policy.load(trust.policy)
    store = FilesystemStore(tmp_path / "runs")
    signed = submit(
        "web",
        json.dumps(PLAN).encode(),
        phase="plan",
        schema_id="plan/v1",
        store=store,
        registry=registry,
        from_role="planner",
        key=SigningKey(trust.planner),
        signer="planner",
    ).id
    unsigned = put(store, "web", registry)
    warnings: list[str] = []
    urls = targets([endpoint.url])
    with Announcer(EventSource(store, lambda: registry, policy), urls, warn=warnings.append):
        body = endpoint.next()["message"]
    assert warnings == []
    assert f"web / {signed}: phase plan, from planner (signed by planner), approvable" in body
    blocked = "from planner (unsigned), blocked: unsigned_handoff"
    assert f"web / {unsigned}: phase plan, {blocked}" in body
    without = waiting(standing(store, HandoffRef("web", signed), registry), policy_in_force=False)
    assert without.producer == "from planner (signed as planner, not checked: no policy)"


def test_a_big_batch_stays_a_glance() -> None:
    many = [Waiting(f"run{n % 7}", f"{n:04d}-plan", "plan", "unsigned", "x") for n in range(30)]
    title, body = announcement(many, link="https://gate.example/")
    assert title == "30 new handoffs in run0, run1, run2, run3, run4 and 2 more runs"
    lines = body.splitlines()
    assert len(lines) == 22 and lines[-2:] == ["… and 10 more", "Review: https://gate.example/"]
    one_run = [Waiting("web", f"{n:04d}-plan", "plan", "unsigned", "approvable") for n in range(7)]
    title, _ = announcement(one_run, at_start=True)
    ids = "0000-plan, 0001-plan, 0002-plan, 0003-plan, 0004-plan, …"
    assert title == f"7 handoffs wait for a decision in web: {ids}"


def _watch(*args: str) -> subprocess.CompletedProcess[str]:
    """``handoff-gate watch ARGS`` through ``main`` in this process: a refused URL must
    stop it before any screen or thread starts, so nothing outlives the call."""
    return cli("watch", *args)


def test_a_url_apprise_cannot_use_stops_watch_before_it_starts(tmp_path: Path) -> None:
    for url in ("nope://alice:hunter2@example.com/", "not a url at all"):
        result = _watch(str(tmp_path), "--notify-url", "json://127.0.0.1:9/", "--notify-url", url)
        assert result.returncode == 2
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("handoff-gate watch: --notify-url ")
        assert "(the 2nd) is not a URL Apprise can send to" in lines[0]
        assert "hunter2" not in result.stderr and "at all" not in result.stderr
