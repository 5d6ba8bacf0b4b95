"""wait_async, the shared watcher, and the polling fallback: real files, real processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from handoff_gate.gates.api import decide, submit, wait, wait_async
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.filesystem import DECISIONS
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.schemas import example_path
from handoff_gate.schemas.planning import Plan

REGISTRY = load_registry("")
PLAN = json.loads(example_path("plan/v1").read_bytes())
BOUND = 30.0
ROOT = Path(__file__).resolve().parent.parent


def _submit(run: Path) -> HandoffRef:
    return submit(run, json.dumps(PLAN).encode(), phase="plan", schema_id="plan/v1")


async def _armed(run: Path, count: int = 1) -> None:
    async with asyncio.timeout(BOUND):
        while fs_watch.subscriber_count(run / DECISIONS) < count:
            await asyncio.sleep(0.005)


def _watchers_gone() -> list[threading.Thread]:
    """Join stopped watcher threads (each notices its stop within one kernel poll step)."""
    for thread in fs_watch.watcher_threads():
        thread.join(BOUND)
    return fs_watch.watcher_threads()


def _inotify_fds() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += "inotify" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
    return count


async def test_approved_carries_payload_model_and_report(tmp_path: Path) -> None:
    ref = _submit(tmp_path)
    task = asyncio.create_task(wait_async(str(tmp_path), ref))
    await _armed(tmp_path)
    decide(tmp_path, ref.id, "approve", registry=REGISTRY)
    result = await asyncio.wait_for(task, BOUND)
    assert result.outcome is WaitOutcome.APPROVED
    assert result.payload == PLAN
    assert isinstance(result.model, Plan)
    assert result.report is not None and result.report.approvable


async def test_a_reject_carries_the_report_and_no_payload(tmp_path: Path) -> None:
    ref = _submit(tmp_path)
    decide(tmp_path, ref.id, "reject", reason="too vague", registry=REGISTRY)
    result = await wait_async(tmp_path, ref.id, registry=REGISTRY)
    assert result.outcome is WaitOutcome.REJECTED
    assert result.payload is None and result.model is None
    assert result.report is not None and result.report.sha256
    assert result.decision is not None and result.decision.reason == "too vague"


def test_a_timeout_carries_the_current_report(tmp_path: Path) -> None:
    ref = _submit(tmp_path)
    result = wait(tmp_path, ref, timeout=0)
    assert result.outcome is WaitOutcome.TIMEOUT
    assert result.report is not None and result.report.approvable
    assert fs_watch.watched_directories() == []  # a look starts no watcher


def test_cancelling_wait_async_leaves_no_thread_and_asyncio_run_returns(tmp_path: Path) -> None:
    ref = _submit(tmp_path)
    before = set(threading.enumerate())

    async def main() -> None:
        task = asyncio.create_task(wait_async(tmp_path, ref))
        await _armed(tmp_path)
        assert len(fs_watch.watcher_threads()) == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert fs_watch.watched_directories() == []
    assert _watchers_gone() == []
    assert set(threading.enumerate()) <= before


async def test_many_waiters_share_one_watcher_and_a_decision_from_another_process(
    tmp_path: Path,
) -> None:
    ref = _submit(tmp_path)
    tasks = [asyncio.create_task(wait_async(tmp_path, ref, registry=REGISTRY)) for _ in range(500)]
    await _armed(tmp_path, 500)
    assert len(fs_watch.watcher_threads()) == 1
    assert _inotify_fds() == 1
    decider = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "handoff_gate", "decide", str(tmp_path), ref.id, "approve",
        stdout=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert await asyncio.wait_for(decider.wait(), BOUND) == 0
    results = await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
    assert {r.outcome for r in results} == {WaitOutcome.APPROVED}
    assert all(r.payload == PLAN for r in results)
    assert _watchers_gone() == []


def test_sync_waiters_share_the_watcher_too(tmp_path: Path) -> None:
    refs = [_submit(tmp_path) for _ in range(20)]
    results: list[WaitOutcome] = []
    threads = [
        threading.Thread(target=lambda r=r: results.append(wait(tmp_path, r).outcome)) for r in refs
    ]
    for thread in threads:
        thread.start()
    asyncio.run(_armed(tmp_path, len(refs)))
    assert len(fs_watch.watcher_threads()) == 1
    for ref in refs:
        decide(tmp_path, ref.id, "approve", registry=REGISTRY)
    for thread in threads:
        thread.join(BOUND)
    assert results == [WaitOutcome.APPROVED] * len(refs)


#: A child that has no file descriptor to spare when its watcher starts, then gets them back.
_REFUSED = textwrap.dedent(
    """
    import json, os, resource, sys, time
    from pathlib import Path
    from handoff_gate.gates.api import wait
    from handoff_gate.gates.store import fs_watch

    run, handoff = Path(sys.argv[1]), sys.argv[2]
    decisions = run / "decisions"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    fillers = []
    try:
        while True:
            fillers.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    sub = fs_watch.subscribe(decisions, lambda: None)
    deadline = time.monotonic() + 30
    while not sub.polling and time.monotonic() < deadline:
        time.sleep(0.01)
    for fd in fillers:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    print("polling" if sub.polling else "watching", flush=True)
    result = wait(run, handoff, timeout=30)
    print(json.dumps({"outcome": result.outcome.value, "payload": result.payload is not None}))
    """
)


def test_a_refused_watcher_falls_back_to_polling_and_says_so_once(tmp_path: Path) -> None:
    ref = _submit(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", _REFUSED, str(tmp_path), ref.id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "polling"
    decide(tmp_path, ref.id, "approve", registry=REGISTRY)
    out, err = child.communicate(timeout=BOUND)
    assert json.loads(out) == {"outcome": "approved", "payload": True}
    assert err.count("polling every") == 1, err
    assert "Traceback" not in err
