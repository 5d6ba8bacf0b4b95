"""``list`` and ``show``: every state, the exact problem of an unusable decision, waiters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_helpers import PLAN_BYTES, cli, submit

from handoff_gate.gates.store.base import WaiterRecord
from handoff_gate.gates.store.durable import atomic_write
from handoff_gate.gates.store.filesystem import FilesystemStore

KEYS = {
    "run",
    "id",
    "phase",
    "schema",
    "sha256",
    "kind",
    "tool",
    "state",
    "verdict",
    "waiter",
    "caller_gave_up",
    "reviewer",
    "signature",
    "category",
    "reason",
    "decided_at",
    "problem",
    "delivered",
}


def _one_of_each(root: Path) -> Path:
    """A run holding a handoff in every state, ids in state order."""
    run = root / "run"
    run.mkdir()
    pending = submit(run)
    blocked = submit(run, b"I cannot help with this request.")
    approved = submit(run)
    rejected = submit(run)
    changed = submit(run)
    unusable = submit(run)
    assert cli("decide", str(run), approved, "approve", "--reviewer", "ana").returncode == 0
    reject = ("--reason", "wrong quarter", "--category", "wrong", "--reviewer", "bo")
    assert cli("decide", str(run), rejected, "reject", *reject).returncode == 0
    assert cli("decide", str(run), changed, "approve").returncode == 0
    path = run / "handoffs" / f"{changed}.json"
    envelope = json.loads(path.read_text())
    envelope["raw"] = envelope["raw"].replace("}", ', "extra": 1}', 1)
    atomic_write(path, json.dumps(envelope).encode())
    (run / "decisions" / f"{unusable}.json").write_text('{"format": "handoff-gate-decision/1"}')
    assert [pending, blocked] == ["0001-plan", "0002-plan"]
    return run


def test_list_shows_every_state_with_its_decision(tmp_path: Path) -> None:
    _one_of_each(tmp_path)
    done = cli("list", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["state"] for r in rows] == [
        "pending",
        "blocked",
        "approved",
        "rejected",
        "changed",
        "unusable",
    ]
    for row in rows:
        assert set(row) == KEYS
        assert row["run"] == "run"
        assert row["waiter"] is False
    rejected = rows[3]
    assert (rejected["reviewer"], rejected["category"], rejected["reason"]) == (
        "bo",
        "wrong",
        "wrong quarter",
    )
    assert rows[2]["reviewer"] == "ana"
    assert rows[2]["decided_at"]
    problem = rows[5]["problem"]
    assert problem.startswith("not a valid decision file: ")
    assert "handoff: Field required" in problem


def test_list_filters_by_state_and_prints_one_line_each(tmp_path: Path) -> None:
    _one_of_each(tmp_path)
    rejected = cli("list", str(tmp_path), "--state", "rejected")
    assert rejected.returncode == 0
    (line,) = rejected.stdout.splitlines()
    assert line.startswith("run  0004-plan  plan  plan/v1  rejected  approvable  waiter=no")
    assert "reviewer=bo" in line
    assert "reason=wrong quarter" in line
    unusable = cli("list", str(tmp_path), "--state", "unusable").stdout
    assert "problem=not a valid decision file" in unusable
    assert cli("list", str(tmp_path), "--state", "maybe").returncode == 2
    assert cli("list", str(tmp_path / "nowhere")).returncode == 2


def test_list_never_prints_terminal_controls_from_a_decision(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    reason = "bad\x1b]0;pwned\x07\nnext line"
    done = cli("decide", str(tmp_path), hid, "reject", "--reason", reason)
    assert done.returncode == 0
    out = cli("list", str(tmp_path)).stdout
    assert len(out.splitlines()) == 1
    assert "\x1b" not in out
    assert "\x07" not in out


def test_show_prints_the_report_and_the_decision(tmp_path: Path) -> None:
    run = _one_of_each(tmp_path)
    rejected = cli("show", str(run), "0004-plan")
    assert rejected.returncode == 0, rejected.stderr
    assert "run/0004-plan: APPROVABLE  schema plan/v1" in rejected.stdout
    assert "problem_statement" in rejected.stdout
    assert "decision: rejected by bo at" in rejected.stdout
    assert "reason wrong quarter" in rejected.stdout
    assert "waiter: nobody is waiting" in rejected.stdout
    unusable = cli("show", str(run), "0006-plan")
    assert "state: unusable" in unusable.stdout
    assert "decision: UNUSABLE  not a valid decision file: " in unusable.stdout
    as_json = json.loads(cli("show", str(run), "0003-plan", "--json").stdout)
    assert as_json["state"] == "approved"
    assert as_json["decision"]["reviewer"] == "ana"
    assert as_json["report"]["verdict"] == "approvable"


def _live(run: Path, hid: str) -> tuple[WaiterRecord, ...]:
    found = FilesystemStore().waiters(str(run), [hid])
    return found.get(hid, ())


def test_a_waiter_record_counts_only_while_its_process_lives(tmp_path: Path) -> None:
    hid = submit(tmp_path, PLAN_BYTES)
    assert _live(tmp_path, hid) == ()
    with FilesystemStore().waiting(str(tmp_path), hid, "2026-01-01T00:00:00.000Z") as me:
        assert _live(tmp_path, hid) == (me,)
    assert _live(tmp_path, hid) == ()
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    pid = int(gone.stdout)
    stale = tmp_path / "waiters" / f"{hid}.{pid}"
    stale.write_text(json.dumps({"pid": pid, "started": "2026-01-01T00:00:00.000Z"}))
    assert _live(tmp_path, hid) == ()
    assert stale.exists()
