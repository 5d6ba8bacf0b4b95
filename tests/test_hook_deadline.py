"""The hook keeps one deadline and fails closed at it (issue 40): a held log lock, an
event that never ends, and the signals an agent or a user sends all end in a deny with
the blocking exit, before the agent's own timer could run the tool.

The hooks run as the agent runs them (``test_cli_hook``'s ``start``: the settings
snippet's command through ``sh``, in a session of its own); no test asserts how fast,
only that the hook ended, within the test's generous bound, with a deny.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli
from test_cli_hook import BOUND, RUN, blocked, denied_reason, event, finish, kill, start

from handoff_gate.gates.store.postgres_schema import init_schema, lock_run


def held(path: Path) -> int:
    """A descriptor holding ``flock`` on ``path``, as the gated agent's process could."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def hook_pid(run: Path) -> int:
    """The waiting hook's pid, from its waiter record (``waiters/ID.PID``)."""
    blocked(run)
    (record,) = (run / "waiters").glob("[0-9]*.*")
    return int(record.name.rsplit(".", 1)[1])


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_a_held_log_lock_at_submit_is_a_deny_by_the_deadline(tmp_path: Path, agent: str) -> None:
    run = tmp_path / RUN[agent]
    run.mkdir(parents=True)
    fd = held(run / "audit.jsonl")
    try:
        code, out, err = finish(start(tmp_path, agent, event(agent), "--timeout", "3"))
    finally:
        os.close(fd)
    assert code == 2 and err.count("\n") == 1 and "the call is blocked" in err
    assert "the call is blocked" in denied_reason(agent, out)


def test_a_held_log_lock_at_the_withdrawal_is_a_deny_and_refuses_approval(tmp_path: Path) -> None:
    """The hook's wait ends while the agent holds the log: it cannot withdraw, answers
    deny, and the handoff it left is one no reviewer can approve."""
    run = tmp_path / RUN["codex"]
    hook = start(tmp_path, "codex", event("codex"), "--timeout", "6")
    handoff_id = blocked(run)
    fd = held(run / "audit.jsonl")
    try:
        code, out, err = finish(hook)
    finally:
        os.close(fd)
    assert code == 2 and ("locked" in err or "deadline" in err)  # its answer or the watchdog's
    assert "the call is blocked" in denied_reason("codex", out)
    late = cli("decide", str(run), handoff_id, "approve", "--reviewer", "alice")
    assert late.returncode != 0
    assert "its caller gave up; nothing would run" in late.stderr
    assert "approve" not in cli("show", str(run), handoff_id).stdout.split("decision:")[-1][:40]


def test_an_event_that_never_ends_is_a_deny_by_the_deadline(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    hook = subprocess.Popen(
        ["handoff-gate", "hook", "gemini", "runs/gemini", "--timeout", "2"], cwd=tmp_path,
        env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert hook.stdin is not None
    hook.stdin.write('{"hook_event_name": "BeforeTool"')  # and the agent never closes it
    hook.stdin.flush()
    try:
        hook.wait(timeout=BOUND)  # stdin still open: only the deadline ends the hook
    finally:
        hook.stdin.close()
        hook.stdin = None
    out, err = hook.communicate(timeout=BOUND)
    assert hook.returncode == 2 and out == ""
    assert "deadline (2 s) passed" in err and "the call is blocked" in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1])
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_every_stop_signal_is_a_deny_and_withdraws(
    tmp_path: Path, agent: str, sig: signal.Signals
) -> None:
    run = tmp_path / RUN[agent]
    hook = start(tmp_path, agent, event(agent))
    try:
        os.kill(hook_pid(run), sig)
        code, out, err = finish(hook)
    finally:
        kill(hook)
    assert code == 2, err
    assert f"stopped by {sig.name}" in err and err.count("\n") == 1
    assert "withdrawn" in denied_reason(agent, out)
    (row,) = json.loads(cli("list", str(run), "--json").stdout)
    assert row["state"] == "withdrawn"


def test_a_killed_hook_leaves_a_handoff_that_says_so_and_cannot_be_approved(
    tmp_path: Path,
) -> None:
    run = tmp_path / RUN["claude-code"]
    hook = start(tmp_path, "claude-code", event("claude-code"))
    handoff_id = blocked(run)
    kill(hook)  # SIGKILL: no handler runs, the waiter record stays behind
    shown = cli("show", str(run), handoff_id).stdout
    assert "its caller gave up" in shown
    listed = cli("list", str(run)).stdout
    assert "waiter=gone" in listed
    late = cli("decide", str(run), handoff_id, "approve", "--reviewer", "alice")
    assert late.returncode != 0 and "its caller gave up; nothing would run" in late.stderr
    rejected = cli("decide", str(run), handoff_id, "reject", "--reviewer", "alice", "--reason", "x")
    assert rejected.returncode == 0, rejected.stderr  # a rejection runs nothing: it stands


def test_a_held_database_lock_is_a_deny_by_the_deadline(tmp_path: Path, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    created = cli("--store", pg_url, "submit", "job-1", "--tool", "Bash", "--call-id", "c0",
                  "--agent", "other", "-", stdin=b'{"command": "true"}')  # fmt: skip
    assert created.returncode == 0, created.stderr
    with psycopg.connect(pg_url) as holder:
        lock_run(holder, "job-1")  # held until this transaction ends
        done = subprocess.run(
            ["handoff-gate", "--store", pg_url, "hook", "codex", "job-1", "--timeout", "3"],
            cwd=tmp_path, env=env, input=json.dumps(event("codex")), capture_output=True,
            text=True, timeout=BOUND,
        )  # fmt: skip
    assert done.returncode == 2 and "the call is blocked" in denied_reason("codex", done.stdout)
    assert "locked" in done.stderr or "deadline" in done.stderr


def test_on_a_database_a_killed_hook_reads_as_gone_and_cannot_be_approved(
    tmp_path: Path, pg_url: str
) -> None:
    """The database keeps a waiter as a lock of its session, which dies with the hook."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    hook = subprocess.Popen(
        ["handoff-gate", "--store", pg_url, "hook", "claude-code", "job-1"], cwd=tmp_path,
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    assert hook.stdin is not None
    hook.stdin.write(json.dumps(event("claude-code")))
    hook.stdin.close()
    hook.stdin = None
    try:
        row = waited_row(pg_url)
        assert row["caller_gave_up"] is False  # its hook waits: approvable
        shown = cli("--store", pg_url, "show", "job-1", row["id"]).stdout
        assert "a wait is blocked on it" in shown
    finally:
        kill(hook)
    (row,) = json.loads(cli("--store", pg_url, "list", "--json").stdout)
    assert row["state"] == "pending" and row["waiter"] is False and row["caller_gave_up"] is True
    late = cli("--store", pg_url, "decide", "job-1", row["id"], "approve", "--reviewer", "alice")
    assert late.returncode != 0 and "its caller gave up; nothing would run" in late.stderr


def waited_row(pg_url: str) -> dict[str, Any]:
    """The handoff a hook on the database waits on, once its waiter lock is held."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        listed = cli("--store", pg_url, "list", "--json")
        rows = json.loads(listed.stdout) if listed.returncode == 0 else []
        if rows and rows[0]["waiter"]:
            row: dict[str, Any] = rows[0]
            return row
        time.sleep(0.05)
    raise AssertionError("no hook started waiting in the database")


def test_a_script_that_submits_now_and_waits_later_stays_approvable(tmp_path: Path) -> None:
    """Only a hook's call needs a live waiter: ``submit --tool`` then ``wait`` later is
    a pipeline's own business, approvable with nobody waiting yet."""
    run = tmp_path / "job"
    done = cli("submit", str(run), "--tool", "Bash", "--call-id", "c1", "-",
               stdin=b'{"command": "true"}')  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(cli("list", str(run), "--json").stdout)
    assert row["waiter"] is False and row["caller_gave_up"] is False
    approved = cli("decide", str(run), row["id"], "approve", "--reviewer", "alice")
    assert approved.returncode == 0, approved.stderr
