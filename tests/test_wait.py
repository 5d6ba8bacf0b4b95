"""Waiting: immediate when decided, woken by a decision, never approving by default."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import watchfiles
from cli_helpers import lenient_plan_schema

from handoff_gate.gates.api import decide, submit, wait
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
from handoff_gate.gates.store.durable import atomic_write
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")
PLAN = json.loads(example_path("plan/v1").read_bytes())
BOUND = 30.0


def _submit(run: Path, payload: Any = PLAN) -> str:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return submit(run, data, phase="plan", schema_id="plan/v1").id


@pytest.fixture
def watching(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set once a waiter has started watching, so a test can decide strictly afterwards:
    the shared watcher (``store.fs_watch``, the only caller of ``watchfiles.watch``, looked
    up on the module at each call) has entered it."""
    started = threading.Event()
    real = watchfiles.watch

    def spy(*args: Any, **kwargs: Any) -> Iterator[Any]:
        started.set()
        yield from real(*args, **kwargs)

    monkeypatch.setattr(watchfiles, "watch", spy)
    return started


def _in_thread(run: Path, hid: str, **kwargs: Any) -> tuple[threading.Thread, list[WaitResult]]:
    results: list[WaitResult] = []
    thread = threading.Thread(
        target=lambda: results.append(wait(run, hid, registry=REGISTRY, **kwargs)), daemon=True
    )
    thread.start()
    return thread, results


def test_returns_at_once_with_only_the_contract_fields(tmp_path: Path) -> None:
    extra = json.dumps({**PLAN, "internal_notes": "do not forward"})
    schema, sid = lenient_plan_schema(), "lenient_plan/v1"
    hid = submit(tmp_path, extra, phase="plan", schema_id=sid, json_schema=schema).id
    decide(tmp_path, hid, "approve", registry=REGISTRY)
    result = wait(tmp_path, hid, registry=REGISTRY, timeout=0)
    assert result.outcome is WaitOutcome.APPROVED
    assert result.payload == PLAN
    assert result.decision is not None
    assert audit.read_events(tmp_path, FilesystemStore())[-1]["outcome"] == "approved"


@pytest.mark.parametrize("poll", [False, True])
def test_wakes_when_a_decision_arrives(
    tmp_path: Path, watching: threading.Event, poll: bool
) -> None:
    hid = _submit(tmp_path)
    thread, results = _in_thread(tmp_path, hid, timeout=BOUND, poll=poll)
    assert watching.wait(BOUND)
    decide(tmp_path, hid, "approve", registry=REGISTRY)
    thread.join(BOUND)
    assert [r.outcome for r in results] == [WaitOutcome.APPROVED]
    assert results[0].payload == PLAN


def test_wakes_when_the_decisions_folder_appears_later(
    tmp_path: Path, watching: threading.Event
) -> None:
    hid = _submit(tmp_path)
    (tmp_path / "decisions").rmdir()
    thread, results = _in_thread(tmp_path, hid, timeout=BOUND)
    assert watching.wait(BOUND)
    decide(tmp_path, hid, "reject", reason="wrong cohort", registry=REGISTRY)
    thread.join(BOUND)
    assert [r.outcome for r in results] == [WaitOutcome.REJECTED]
    assert results[0].decision is not None
    assert results[0].decision.reason == "wrong cohort"
    assert results[0].payload is None


def test_a_timeout_never_approves(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    result = wait(tmp_path, hid, registry=REGISTRY, timeout=0.05)
    assert result.outcome is WaitOutcome.TIMEOUT
    assert result.payload is None
    assert not (tmp_path / "decisions" / f"{hid}.json").exists()


def test_a_handoff_edited_after_approval_is_not_delivered(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    decide(tmp_path, hid, "approve", registry=REGISTRY)
    path = tmp_path / "handoffs" / f"{hid}.json"
    envelope = json.loads(path.read_bytes())
    envelope["raw"] = json.dumps({**PLAN, "constraints": []})
    atomic_write(path, json.dumps(envelope).encode())
    result = wait(tmp_path, hid, registry=REGISTRY, timeout=0)
    assert result.outcome is WaitOutcome.CHANGED
    assert result.payload is None


def test_a_stop_event_cancels_without_approving(tmp_path: Path, watching: threading.Event) -> None:
    hid = _submit(tmp_path)
    stop = threading.Event()
    thread, results = _in_thread(tmp_path, hid, stop_event=stop)
    assert watching.wait(BOUND)
    stop.set()
    thread.join(BOUND)
    assert [r.outcome for r in results] == [WaitOutcome.CANCELLED]


def test_waiting_for_a_handoff_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    _submit(tmp_path)
    with pytest.raises(FileNotFoundError):
        wait(tmp_path, "0042-plan", registry=REGISTRY, timeout=0)


def test_a_blocked_wait_is_a_listed_waiter_and_announces_itself_once(tmp_path: Path) -> None:
    """Reviewers can tell a listening pipeline from one that gave up: the API's wait
    records itself while blocked (not only the CLI's), and ``on_block`` runs once."""
    hid = _submit(tmp_path)
    announced: list[str] = []
    blocked = threading.Event()

    def on_block(report: Any) -> None:
        announced.append(report.verdict.value)
        blocked.set()

    results: list[WaitResult] = []
    waiter = threading.Thread(
        target=lambda: results.append(
            wait(tmp_path, hid, registry=REGISTRY, timeout=BOUND, on_block=on_block)
        )
    )
    waiter.start()
    assert blocked.wait(BOUND)
    live = FilesystemStore().waiters(str(tmp_path), [hid])
    assert [w.pid for w in live.get(hid, ())] == [os.getpid()]
    decide(tmp_path, hid, "approve", reviewer="ana", registry=REGISTRY)
    waiter.join(BOUND)
    assert results[0].outcome is WaitOutcome.APPROVED
    assert announced == ["approvable"]
    assert FilesystemStore().waiters(str(tmp_path), [hid]) == {}


def test_a_decided_handoff_returns_without_announcing(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    decide(tmp_path, hid, "reject", reason="no", reviewer="ana", registry=REGISTRY)
    announced: list[Any] = []
    result = wait(tmp_path, hid, registry=REGISTRY, timeout=BOUND, on_block=announced.append)
    assert result.outcome is WaitOutcome.REJECTED
    assert announced == []
    assert not (tmp_path / "waiters").exists() or not any((tmp_path / "waiters").iterdir())
