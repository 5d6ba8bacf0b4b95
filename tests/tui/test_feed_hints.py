"""The one ``Feed`` over either store: hints become listings, and only changes re-inspect.

Hints are sorted by what the listing thread has seen, not by the screen. A run the
listing thread has listed may not be on screen yet (its ``Listed`` message is still
queued). A hint about a new handoff in it must still get that handoff listed: sorted by
the screen's view it asked for a look at the runs, which finds no new run, and the
handoff was never listed. Each test runs the feed's real threads on a real store.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from tui_helpers import PLAN

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.notify.source import THREAD_NAME, EventSource
from handoff_gate.gates.store.base import Change, RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.tui.feed import Feed
from handoff_gate.tui.messages import Listed
from handoff_gate.tui.scan import RunListing

BOUND_S = 20.0
RUN = "run-a"


@pytest.fixture(params=["fs", "pg"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    if request.param == "fs":
        root = tmp_path / "runs"
        root.mkdir()
        yield FilesystemStore(root)
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    with PostgresStore(url) as pg:
        yield pg


def _listings(messages: list[object]) -> list[RunListing]:
    return [
        listing
        for message in list(messages)
        if isinstance(message, Listed)
        for listing in message.listings
    ]


def _listed_ids(messages: list[object]) -> set[str]:
    return {ref.id for listing in _listings(messages) for ref in listing.refs}


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.01)


def _feed(store: RunStore, messages: list[object]) -> Feed:
    """Listing needs no core: nothing here inspects."""
    return Feed(store, messages.append)


def _put(store: RunStore, registry: Registry) -> str:
    payload = json.dumps(PLAN).encode()
    ref = submit(RUN, payload, phase="plan", schema_id="plan/v1", store=store, registry=registry)
    return ref.id


def test_a_hint_in_a_run_listed_but_not_yet_shown_gets_its_handoff_listed(
    store: RunStore,
) -> None:
    registry = load_registry()
    first = _put(store, registry)
    messages: list[object] = []
    feed = _feed(store, messages)
    lister = threading.Thread(target=feed.relist_loop, daemon=True)
    lister.start()
    try:
        feed.changed(Change())  # what the store's watch sends first
        _until(lambda: first in _listed_ids(messages), "the first listing")
        # Nothing merged these listings into a screen: the run is only known to the feed.
        second = _put(store, registry)
        feed.changed(Change(RUN, second))
        _until(lambda: second in _listed_ids(messages), "the new handoff listed")
    finally:
        feed.close()
        lister.join(BOUND_S)


def test_the_watch_lists_new_handoffs_and_restamps_only_what_was_decided(
    store: RunStore,
) -> None:
    registry = load_registry()
    kept, decided = _put(store, registry), _put(store, registry)
    messages: list[object] = []
    feed = _feed(store, messages)
    threads = [threading.Thread(target=feed.relist_loop, daemon=True)]
    threads[0].start()
    feed.listen(EventSource(store, lambda: registry).subscribe)

    def latest(handoff_id: str) -> RunListing:
        return [x for x in _listings(messages) if handoff_id in x.stamps][-1]

    try:
        _until(lambda: {kept, decided} <= _listed_ids(messages), "the first listing")
        before = latest(kept)
        assert before.decision_stamps == {kept: None, decided: None}
        arrived = _put(store, registry)
        _until(lambda: arrived in _listed_ids(messages), "a new handoff listed")
        decide(RUN, decided, "approve", reviewer="alice", registry=registry, store=store)
        _until(lambda: latest(decided).decision_stamps[decided] is not None, "the decision")
        assert latest(kept).stamps[kept] == before.stamps[kept]
        assert latest(kept).decision_stamps.get(kept) is None
    finally:
        feed.close()
        for thread in threads:
            thread.join(BOUND_S)
    assert not any(thread.is_alive() for thread in threads)
    assert not any(t.name == THREAD_NAME for t in threading.enumerate()), "the watch ended"
