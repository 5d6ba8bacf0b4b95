"""Filesystem events are sorted by what the listing thread has seen, not by the screen.

A run the listing thread has listed may not be on screen yet (its ``Listed`` message is
still queued). An event about a new handoff in it must still get that handoff listed:
sorted by the screen's view it asked for a look at the root, which finds no new run,
and the handoff was never listed.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tui_helpers import PLAN

from handoff_gate.gates.api import submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import handoff_path
from handoff_gate.tui.feed import Feed
from handoff_gate.tui.messages import Listed

BOUND_S = 20.0


def _listed_ids(messages: list[object]) -> set[str]:
    return {
        ref.id
        for message in list(messages)
        if isinstance(message, Listed)
        for listing in message.listings
        for ref in listing.refs
    }


def _until(check: object, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.01)


def test_an_event_in_a_run_listed_but_not_yet_shown_gets_its_handoff_listed(
    tmp_path: Path,
) -> None:
    registry = load_registry()
    root = tmp_path / "runs"
    run = root / "run-a"
    run.mkdir(parents=True)
    payload = json.dumps(PLAN).encode()
    first = submit(run, payload, phase="plan", schema_id="plan/v1", registry=registry)
    messages: list[object] = []
    feed = Feed(root, messages.append, poll=False)
    feed.start()
    lister = threading.Thread(target=feed.relist_loop, daemon=True)
    lister.start()
    try:
        _until(lambda: first.id in _listed_ids(messages), "the first listing")
        # Nothing merged these listings into a screen: the run is only known to the feed.
        second = submit(run, payload, phase="plan", schema_id="plan/v1", registry=registry)
        feed.hint(handoff_path(run, second.id))
        _until(lambda: second.id in _listed_ids(messages), "the new handoff listed")
    finally:
        feed.close()
        lister.join(BOUND_S)
