"""``wait`` while it blocks: its waiter record, ``--notify``, and Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from cli_helpers import BOUND, cli, start_wait, submit

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.filesystem import FilesystemStore

ENV_DUMP = "env | grep '^HANDOFF_GATE_' | sort >&2; echo notified >&2"


def _read_until(proc: subprocess.Popen[str], marker: str) -> list[str]:
    """stderr lines up to ``marker``; an early end of the wait fails with what it printed."""
    assert proc.stderr is not None
    lines: list[str] = []
    while True:
        line = proc.stderr.readline()
        assert line, f"wait ended before {marker!r}: {lines}"
        lines.append(line.rstrip("\n"))
        if line.strip() == marker:
            return lines


def _listed(root: Path) -> dict[str, dict[str, object]]:
    done = cli("list", str(root), "--json")
    assert done.returncode == 0, done.stderr
    return {row["id"]: row for row in json.loads(done.stdout)}


def test_notify_runs_once_with_the_handoff_in_its_environment(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    waiter = start_wait(tmp_path, hid, "--notify", ENV_DUMP)
    try:
        lines = _read_until(waiter, "notified")
        assert f"HANDOFF_GATE_ID={hid}" in lines
        assert "HANDOFF_GATE_PHASE=plan" in lines
        assert "HANDOFF_GATE_VERDICT=approvable" in lines
        assert f"HANDOFF_GATE_RUN={tmp_path}" in lines
        assert _listed(tmp_path)[hid]["waiter"] is True
        assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
        out, err = waiter.communicate(timeout=BOUND)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert waiter.returncode == 0, err
    assert json.loads(out)["problem_statement"]
    assert "notified" not in err
    assert _listed(tmp_path)[hid]["waiter"] is False
    assert list((tmp_path / "waiters").iterdir()) == []


def test_a_failing_notify_is_reported_and_the_wait_goes_on(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    waiter = start_wait(tmp_path, hid, "--notify", "echo trying >&2; exit 7")
    try:
        _read_until(waiter, "trying")
        assert waiter.stderr is not None
        failure = waiter.stderr.readline()
        assert "--notify command exited 7; still waiting" in failure
        assert waiter.poll() is None
        assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
        waiter.communicate(timeout=BOUND)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert waiter.returncode == 0


def test_no_notify_and_no_waiter_when_already_decided(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    done = cli("wait", str(tmp_path), hid, "--notify", "echo notified >&2")
    assert done.returncode == 0
    assert "notified" not in done.stderr
    assert not (tmp_path / "waiters").exists()


def test_ctrl_c_records_cancelled_and_exits_130(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    waiter = start_wait(tmp_path, hid, "--notify", "echo blocking >&2")
    try:
        _read_until(waiter, "blocking")
        waiter.send_signal(signal.SIGINT)
        out, err = waiter.communicate(timeout=BOUND)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert (waiter.returncode, out) == (130, "")
    assert "Traceback" not in err
    assert "cancelled" in err
    last = audit.read_events(tmp_path, FilesystemStore())[-1]
    assert (last["event"], last["handoff"], last["outcome"]) == ("wait_returned", hid, "cancelled")
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []
    assert list((tmp_path / "waiters").iterdir()) == []
