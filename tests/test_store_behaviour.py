"""One behaviour suite for every ``RunStore``: the filesystem and PostgreSQL alike.

Each test runs against both stores through the same calls, so the guarantees the seam
promises (numbering, idempotency, exact bytes, one decision per principal, a linear audit
chain) are checked once and hold for both. Races run in real processes, each with its own
store object (its own connection for PostgreSQL), released together by a barrier.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import psycopg
import pytest
import racers

from handoff_gate.gates.api import decide, submit, wait
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.base import (
    Change,
    ContractConflict,
    DecisionExists,
    FolderMechanics,
    RunStore,
    Watchable,
    WatchLapse,
    WithdrawalExists,
    watchable,
)
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import example_path

WORKERS = 8
PLAN_BYTES = example_path("plan/v1").read_bytes()
BOUND = 60
#: Exact bytes with everything a re-encoding would change: CRLF, tabs, trailing blanks,
#: non-ASCII, a NUL and invalid UTF-8.
ODD_BYTES = b'{"a": "\xc3\xa9\xe2\x80\x94"}\r\n\t  \x00\xff\xfe '


@dataclass(frozen=True)
class Target:
    """A store and a run in it; ``spec`` rebuilds the store in another process (a
    filesystem store over its root folder, so its watch sees only its own runs)."""

    spec: tuple[str, str]
    store: RunStore
    run: str


def make_store(spec: tuple[str, str]) -> RunStore:
    kind, url = spec
    return FilesystemStore(url) if kind == "fs" else PostgresStore(url)


@pytest.fixture(params=["fs", "pg"])
def target(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Target]:
    if request.param == "fs":
        yield Target(("fs", str(tmp_path)), FilesystemStore(tmp_path), "run-1")
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    store = PostgresStore(url)
    try:
        yield Target(("pg", url), store, "run-1")
    finally:
        store.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[tuple[Pool, Any]]:
    """Worker processes and a manager for barriers, started once for the whole module."""
    ctx = racers.context()
    manager = ctx.Manager()
    workers = ctx.Pool(WORKERS)
    try:
        yield workers, manager
    finally:
        workers.terminate()
        workers.join()
        manager.shutdown()


def _envelope_for(tag: str) -> Any:
    def envelope(seq: int, handoff_id: str) -> bytes:
        return json.dumps({"id": handoff_id, "seq": seq, "tag": tag}).encode()

    return envelope


def _task(spec: tuple[str, str], run: str, job: str, n: int, gate: Any) -> list[str]:
    """One racer: wait for the others, then do ``job``; returns what it saw."""
    store = make_store(spec)
    try:
        gate.wait(BOUND)
        if job == "handoffs":
            return [store.add_handoff(run, "plan", _envelope_for(f"{n}.{i}")).id for i in range(3)]
        if job == "keyed":
            got = store.add_handoff(run, "plan", _envelope_for(str(n)), idempotency_key="k")
            return [got.id, "created" if got.created else "found"]
        if job in ("same-principal", "principals"):
            who = "alice" if job == "same-principal" else f"p{n}"
            try:
                store.create_decision(
                    run,
                    "0001-plan",
                    who,
                    f'{{"racer":{n}}}'.encode(),
                    {"event": "decision_written", "n": n},
                )
            except DecisionExists:
                return ["lost"]
            return ["won"]
        if job == "create":
            return ["made" if store.create(run) else "found"]
        if job == "contract":
            digest = hashlib.sha256(str(n).encode()).hexdigest()
            try:
                store.add_contract(run, "plan/v1", digest, b'{"type":"object"}', added=ADDED)
            except ContractConflict:
                return ["refused"]
            return [digest]
        if job == "events":
            return [
                str(store.append_event(run, {"event": "wait_returned", "n": n, "i": i}))
                for i in range(5)
            ]
        raise AssertionError(job)
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


def race(pool: tuple[Pool, Any], target: Target, job: str, racers: int) -> list[list[str]]:
    workers, manager = pool
    gate = manager.Barrier(racers)
    args = [(target.spec, target.run, job, n, gate) for n in range(racers)]
    return workers.starmap_async(_task, args, chunksize=1).get(BOUND)


def _first_handoff(target: Target) -> str:
    return target.store.add_handoff(target.run, "plan", _envelope_for("first")).id


def test_concurrent_submitters_get_distinct_consecutive_numbers(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    results = race(pool, target, "handoffs", 4)
    ids = [hid for result in results for hid in result]
    assert sorted(ids) == [f"{n:04d}-plan" for n in range(1, 13)]
    assert target.store.handoff_ids(target.run) == sorted(ids)
    for result in results:
        assert result == sorted(result)  # each submitter's own handoffs in its order
    for hid in ids:
        envelope = json.loads(target.store.handoff_bytes(target.run, hid, 1000))
        assert (envelope["id"], envelope["seq"]) == (hid, int(hid[:4]))


def test_an_idempotency_key_names_one_handoff_even_under_a_race(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    results = race(pool, target, "keyed", 4)
    assert sorted(r[1] for r in results) == ["created", "found", "found", "found"]
    first = {r[0] for r in results}
    assert len(first) == 1  # (the filesystem may skip numbers the losers reserved)
    (hid,) = first
    assert target.store.handoff_ids(target.run) == [hid]
    again = target.store.add_handoff(target.run, "plan", _envelope_for("x"), idempotency_key="k")
    assert (again.id, again.created) == (hid, False)
    other = target.store.add_handoff(target.run, "plan", _envelope_for("y"), idempotency_key="j")
    assert other.created and other.seq > again.seq
    assert target.store.handoff_ids(target.run) == [hid, other.id]


def test_of_racers_creating_one_run_exactly_one_is_told_it_made_it(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    assert not target.store.exists(target.run)
    results = race(pool, target, "create", 4)
    assert sorted(r[0] for r in results) == ["found", "found", "found", "made"]
    assert target.store.create(target.run) is False
    assert target.store.handoff_ids(target.run) == []
    _first_handoff(target)
    assert target.store.exists(target.run)


def test_handoff_bytes_come_back_exactly_and_are_bounded(target: Target) -> None:
    stored = target.store.add_handoff(target.run, "plan", lambda seq, hid: ODD_BYTES)
    assert target.store.handoff_bytes(target.run, stored.id, len(ODD_BYTES)) == ODD_BYTES
    with pytest.raises(OversizeError):
        target.store.handoff_bytes(target.run, stored.id, len(ODD_BYTES) - 1)
    with pytest.raises(FileNotFoundError):
        target.store.handoff_bytes(target.run, "0002-plan", 1000)
    if target.spec[0] == "pg":
        with psycopg.connect(target.spec[1]) as conn:
            row = conn.execute("SELECT sha256 FROM handoffs WHERE id = %s", (stored.id,))
            assert row.fetchone() == (hashlib.sha256(ODD_BYTES).hexdigest(),)


def test_an_edit_is_kept_exactly_under_its_sha256_and_never_replaced(target: Target) -> None:
    """A reviewer's edited payload comes back byte for byte under the digest it is
    named by; keeping the same bytes again is the same edit, a bound is a bound, and an
    edit of a handoff that is not there, or one never kept, is not found."""
    hid = _first_handoff(target)
    digest = target.store.create_edit(target.run, hid, ODD_BYTES)
    assert digest == hashlib.sha256(ODD_BYTES).hexdigest()
    assert target.store.create_edit(target.run, hid, ODD_BYTES) == digest
    assert target.store.edit_bytes(target.run, hid, digest, len(ODD_BYTES)) == ODD_BYTES
    with pytest.raises(OversizeError):
        target.store.edit_bytes(target.run, hid, digest, len(ODD_BYTES) - 1)
    other = hashlib.sha256(b"never kept").hexdigest()
    with pytest.raises(FileNotFoundError):
        target.store.edit_bytes(target.run, hid, other, 1000)
    with pytest.raises(FileNotFoundError):
        target.store.create_edit(target.run, "0009-plan", b"{}")
    assert target.store.decision_records(target.run, hid) == {}
    if target.spec[0] == "pg":
        with psycopg.connect(target.spec[1]) as conn, pytest.raises(psycopg.Error):
            conn.execute("UPDATE edits SET data = 'x'")
    else:
        path = Path(target.spec[1]) / target.run / "edits" / hid / f"{digest}.json"
        path.chmod(0o600)
        path.write_bytes(b"swapped")
        with pytest.raises(OSError, match="altered"):
            target.store.edit_bytes(target.run, hid, digest, 1000)
        with pytest.raises(OSError, match="altered"):
            target.store.create_edit(target.run, hid, ODD_BYTES)


def test_eight_racers_as_one_principal_leave_exactly_one_decision(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    hid = _first_handoff(target)
    results = race(pool, target, "same-principal", WORKERS)
    outcomes = sorted(r[0] for r in results)
    assert outcomes == ["lost"] * (WORKERS - 1) + ["won"]
    records = target.store.decision_records(target.run, hid)
    assert list(records) == ["alice"]
    winner = json.loads(records["alice"])["racer"]
    logged = audit.read_events(target.run, target.store)
    assert [e["n"] for e in logged if e["event"] == "decision_written"] == [winner]


def test_different_principals_and_the_unsigned_slot_are_all_recorded(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    hid = _first_handoff(target)
    assert sorted(r[0] for r in race(pool, target, "principals", 4)) == ["won"] * 4
    target.store.create_decision(target.run, hid, None, b"unsigned", {"event": "decision_written"})
    with pytest.raises(DecisionExists):
        target.store.create_decision(target.run, hid, None, b"again", {"event": "decision_written"})
    records = target.store.decision_records(target.run, hid)
    assert set(records) == {None, "p0", "p1", "p2", "p3"}
    assert records[None] == b"unsigned"
    assert records["p2"] == b'{"racer":2}'
    assert len(audit.read_events(target.run, target.store)) == 5


def test_concurrent_appends_keep_one_linear_chain(target: Target, pool: tuple[Pool, Any]) -> None:
    _first_handoff(target)
    race(pool, target, "events", 4)
    log = b"".join(target.store.log_chunks(target.run))
    assert len(log.splitlines()) == 20
    assert log.endswith(b"\n")
    assert audit.verify_chain(target.run, target.store) == []


def test_the_log_returns_each_event_exactly_as_appended(target: Target) -> None:
    _first_handoff(target)
    first = audit.append(target.run, audit.Event.HANDOFF_SUBMITTED, store=target.store, a="é")
    second = audit.append(target.run, audit.Event.WAIT_RETURNED, store=target.store, b=[1])
    assert audit.read_events(target.run, target.store) == [first, second]
    assert audit.verify_chain(target.run, target.store) == []


def test_submit_through_the_api_records_the_handoff_and_its_event(target: Target) -> None:
    payload = b'{"goal": "ship", "steps": []}\n'
    ref = submit(target.run, payload, phase="plan", schema_id="plan/v1", store=target.store)
    again = submit(
        target.run,
        payload,
        phase="plan",
        schema_id="plan/v1",
        store=target.store,
        idempotency_key="step-1",
    )
    same = submit(
        target.run,
        payload,
        phase="plan",
        schema_id="plan/v1",
        store=target.store,
        idempotency_key="step-1",
    )
    assert (ref.id, again.id, same.id) == ("0001-plan", "0002-plan", "0002-plan")
    with pytest.raises(ValueError, match="other bytes"):
        submit(
            target.run,
            b"{}",
            phase="plan",
            schema_id="plan/v1",
            store=target.store,
            idempotency_key="step-1",
        )
    envelope = json.loads(target.store.handoff_bytes(target.run, ref.id, 100_000))
    assert envelope["raw"] == payload.decode()
    assert envelope["run"] == "run-1"
    events = audit.read_events(target.run, target.store)
    assert [e["handoff"] for e in events] == ["0001-plan", "0002-plan"]
    assert audit.verify_chain(target.run, target.store) == []
    assert target.store.exists(target.run)


def test_a_store_has_the_folder_mechanics_only_where_it_has_folders(target: Target) -> None:
    """Callers test for the capability: a database implements no folder mechanics (no veto
    to expose, no planted record to set aside, no folder to swap) rather than constants."""
    assert isinstance(target.store, FolderMechanics) is (target.spec[0] == "fs")
    assert isinstance(target.store, Watchable)


def _changes(target: Target) -> tuple[list[Change | WatchLapse], threading.Event, threading.Thread]:
    """The store's watch running in a thread of its own, collecting what it sends."""
    seen: list[Change | WatchLapse] = []
    stop = threading.Event()
    store = watchable(target.store.copy())
    thread = threading.Thread(target=store.watch, args=(seen.append, stop), daemon=True)
    thread.start()
    return seen, stop, thread


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not check():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def test_a_listing_stamps_each_handoff_and_moves_only_with_a_decision(target: Target) -> None:
    store, run = target.store, target.run
    assert store.listing(run) == []
    first, second = _first_handoff(target), _first_handoff(target)
    before = store.listing(run)
    assert [listed.id for listed in before] == [first, second]
    assert [listed.decision_stamp for listed in before] == [None, None]
    store.create_decision(run, second, None, b"{}", {"event": "decision_written"})
    after = {listed.id: listed for listed in store.listing(run)}
    assert after[first] == before[0]
    assert after[second].stamp == before[1].stamp
    unsigned = after[second].decision_stamp
    assert unsigned is not None
    store.create_decision(run, second, "alice", b"{}", {"event": "decision_written"})
    (signed,) = store.listing(run, [second])
    assert signed.decision_stamp not in (None, unsigned)


def test_a_listing_of_some_ids_leaves_out_those_not_there(target: Target) -> None:
    store, run = target.store, target.run
    first = _first_handoff(target)
    listed = store.listing(run, [first, "0009-plan", "../../x"])
    assert [x.id for x in listed] == [first]
    assert store.listing(run, ["0009-plan"]) == []
    assert store.listing(run + "-missing") == []


def test_the_watch_starts_with_a_change_then_names_new_handoffs_and_decisions(
    target: Target,
) -> None:
    store, run = target.store, target.run
    store.create(run)
    seen, stop, thread = _changes(target)
    try:
        _until(lambda: Change() in seen, "the first Change()")
        time.sleep(0.2)  # a filesystem watcher arms just after it says so
        handoff = _first_handoff(target)
        named = {store.run_label(str(c.run)) for c in seen if isinstance(c, Change) and c.run}

        def hinted(handoff_id: str) -> bool:
            hints = [c for c in seen if isinstance(c, Change) and c.handoff_id == handoff_id]
            return any(store.run_label(str(c.run)) == store.run_label(run) for c in hints)

        _until(lambda: hinted(handoff), "a hint for the new handoff")
        seen.clear()
        store.create_decision(run, handoff, None, b"{}", {"event": "decision_written"})
        _until(lambda: hinted(handoff), "a hint for its decision")
        assert named <= {store.run_label(run)}
    finally:
        stop.set()
        thread.join(BOUND)
    assert not thread.is_alive()


def test_decided_ids_name_only_the_decided_handoffs_in_order(target: Target) -> None:
    """Where an append-only baseline may be: found from the decisions, not an index."""
    store, run = target.store, target.run
    first, second, third = (_first_handoff(target) for _ in range(3))
    assert store.decided_ids(run) == []
    store.create_decision(run, third, "alice", b"{}", {"event": "decision_written"})
    store.create_decision(run, first, None, b"{}", {"event": "decision_written"})
    store.create_decision(run, first, "bob", b"{}", {"event": "decision_written"})
    assert store.decided_ids(run) == [first, third]
    assert second not in store.decided_ids(run)


ADDED = "2026-03-02T09:00:47.000Z"
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"goal": {"type": "string", "minLength": 1, "description": "what to do"}},
    "required": ["goal"],
    "additionalProperties": False,
}


def test_a_contract_is_stored_once_per_id_and_another_content_is_refused(target: Target) -> None:
    store, run = target.store, target.run
    one, two = "a" * 64, "b" * 64
    assert store.add_contract(run, "plan/v1", one, b'{"type":"object"}', added=ADDED) is True
    assert store.add_contract(run, "plan/v1", one, b'{"type":"object"}', added=ADDED) is False
    with pytest.raises(ContractConflict) as refused:
        store.add_contract(run, "plan/v1", two, b"{}", added=ADDED)
    assert one in str(refused.value) and two in str(refused.value)
    assert "new version" in str(refused.value)
    assert store.add_contract(run, "plan/v2", two, b"{}", added=ADDED) is True
    listed = store.contracts(run)
    assert [(c.schema_id, c.sha256, c.kind) for c in listed] == [
        ("plan/v1", one, "json-schema"),
        ("plan/v2", two, "json-schema"),
    ]
    assert all(c.added == ADDED for c in listed)
    assert store.contract_document(run, one) == b'{"type":"object"}'
    assert store.contract_document(run, "c" * 64) is None
    with pytest.raises(ValueError, match="name/v1"):
        store.add_contract(run, "../x", one, b"{}", added=ADDED)


def test_of_racers_storing_one_contract_id_exactly_one_wins(
    target: Target, pool: tuple[Pool, Any]
) -> None:
    target.store.create(target.run)
    results = [r[0] for r in race(pool, target, "contract", WORKERS)]
    won = [r for r in results if r != "refused"]
    assert len(won) == 1
    assert [c.sha256 for c in target.store.contracts(target.run)] == won


def test_a_reviewer_without_contract_modules_decides_and_delivers_a_stored_contract(
    target: Target,
) -> None:
    producer = Gate(target.store, contracts={})
    ref = producer.submit(
        target.run,
        b'{"goal": "ship", "extra": 1}',
        phase="plan",
        schema_id="plan/v1",
        json_schema=PLAN_SCHEMA,
    )
    envelope = json.loads(target.store.handoff_bytes(target.run, ref.id, 100_000))
    (stored,) = target.store.contracts(target.run)
    assert envelope["schema_sha256"] == stored.sha256
    reviewer = Gate(target.store.copy(), contracts={})
    report = reviewer.inspect(target.run, ref)
    # The stored contract closes the object: the extra key blocks, for a reviewer with
    # no contract module as for anyone.
    assert [(f.code.value, f.severity.value) for f in report.findings] == [("unknown_key", "block")]
    exact = producer.submit(
        target.run, b'{"goal": "ship"}', phase="plan", schema_id="plan/v1", json_schema=PLAN_SCHEMA
    )
    assert reviewer.inspect(target.run, exact).findings == ()
    reviewer.decide(target.run, exact, "approve")
    result = reviewer.wait(target.run, exact, timeout=5)
    assert result.outcome.value == "approved"
    assert result.payload == {"goal": "ship"}


def test_a_handoff_naming_a_contract_the_run_does_not_hold_is_blocked(target: Target) -> None:
    gate = Gate(target.store, contracts={})
    lax_schema = {"type": "object", "properties": {"goal": {"type": "string"}}}
    gate.add_contract(target.run, "lax/v1", lax_schema)
    lax = target.store.contracts(target.run)[0].sha256

    def forged(seq: int, handoff_id: str) -> bytes:
        return json.dumps(
            {
                "id": handoff_id,
                "seq": seq,
                "run": target.store.run_name(target.run),
                "phase": "plan",
                "schema": "plan/v1",
                "schema_sha256": lax,
                "created": "2026-01-01T00:00:00Z",
                "raw": '{"goal": ""}',
            }
        ).encode()

    stored = target.store.add_handoff(target.run, "plan", forged)
    report = gate.inspect(target.run, stored.id)
    assert not report.approvable
    (finding,) = [f for f in report.findings if f.code.value == "unknown_schema"]
    assert "plan/v1" in finding.message and lax in finding.message
    assert gate.wait(target.run, stored.id, timeout=0.2).outcome.value != "approved"


def test_the_watch_names_the_run_when_a_contract_is_added(target: Target) -> None:
    store, run = target.store, target.run
    store.create(run)
    seen, stop, thread = _changes(target)
    try:
        _until(lambda: Change() in seen, "the first Change()")
        time.sleep(0.2)  # a filesystem watcher arms just after it says so
        seen.clear()
        store.add_contract(run, "plan/v1", "d" * 64, b"{}", added=ADDED)
        _until(
            lambda: any(
                isinstance(c, Change) and c.run and store.run_label(c.run) == store.run_label(run)
                for c in seen
            ),
            "a hint naming the run",
        )
    finally:
        stop.set()
        thread.join(BOUND)
    assert not thread.is_alive()


def test_a_wait_delivers_only_the_bytes_its_reference_names(target: Target) -> None:
    """``HandoffRef.sha256`` is checked against the stored bytes on either store: the
    reference ``submit`` returned delivers, one naming other bytes ends ``changed``."""
    ref = submit(target.run, PLAN_BYTES, phase="plan", schema_id="plan/v1", store=target.store)
    decide(target.run, ref, "approve", store=target.store)
    assert wait(target.run, ref, timeout=0, store=target.store).outcome == "approved"
    other = ref._replace(sha256=hashlib.sha256(b"other bytes").hexdigest())
    result = wait(target.run, other, timeout=0, store=target.store)
    assert (result.outcome, result.payload) == ("changed", None)


def test_a_withdrawal_is_written_once_logged_with_it_and_read_back_by_another_store(
    target: Target,
) -> None:
    hid = _first_handoff(target)
    assert target.store.withdrawal_record(target.run, hid) is None
    event = {"event": "handoff_withdrawn", "handoff": hid, "by": "ci"}
    logged = target.store.create_withdrawal(target.run, hid, b'{"by":"ci"}', event)
    assert logged["event"] == "handoff_withdrawn"
    with pytest.raises(WithdrawalExists):
        target.store.create_withdrawal(target.run, hid, b'{"by":"other"}', event)
    other = make_store(target.spec)
    try:
        assert other.withdrawal_record(target.run, hid) == b'{"by":"ci"}'
        assert other.decision_records(target.run, hid) == {}
    finally:
        other.close()
    events = [e["event"] for e in audit.read_events(target.run, target.store)]
    assert events.count("handoff_withdrawn") == 1
    assert audit.verify_chain(target.run, target.store) == []
