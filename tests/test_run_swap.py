"""Issue 19, item 8: a run's address cannot be pointed at another run.

An agent that keeps an old approved copy of a run can put it where the pipeline waits:
as a symlink to the copy, or by moving the copy into the run's place while the wait
blocks. Either way the old approval must not be delivered: a wait never follows a
symlinked run path, and stops (exit 2) when the folder at the run's address is no longer
the one it started on. ``audit --verify`` flags a symlinked run path. A copy put in place
before the wait starts is refused by a wait pinned to what was submitted.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from cli_helpers import PLAN_BYTES, cli, start_wait, submit

import handoff_gate as hg
from handoff_gate.gates.vocab.handoff_ref import HandoffRef


def _approved_copy(tmp_path: Path) -> Path:
    """An approved run named ``run``, kept aside by the agent."""
    old = tmp_path / "kept" / "run"
    hid = submit(old)
    assert cli("decide", str(old), hid, "approve", "--reviewer", "ana").returncode == 0
    return old


def test_a_run_path_that_is_a_symlink_is_not_waited_on(tmp_path: Path) -> None:
    old = _approved_copy(tmp_path)
    run = tmp_path / "live" / "run"
    run.parent.mkdir()
    run.symlink_to(old)
    done = cli("wait", str(run), "0001-plan", "--timeout", "5")
    assert done.returncode == 2 and done.stdout == ""
    assert "is a symlink" in done.stderr
    verified = cli("audit", str(run), "--verify")
    assert verified.returncode == 1 and "is a symlink" in verified.stdout
    assert cli("audit", str(old), "--verify").returncode == 0


def test_a_copy_moved_into_the_runs_place_during_a_wait_is_not_delivered(
    tmp_path: Path,
) -> None:
    old = _approved_copy(tmp_path)
    run = tmp_path / "live" / "run"
    hid = submit(run)
    waiter = start_wait(run, hid)
    assert "no --policy" in (waiter.stderr.readline() if waiter.stderr else "")
    for _ in range(300):  # until it is blocked (its waiter record is there)
        if "waiter=yes" in cli("list", str(run)).stdout:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the wait never blocked")
    run.rename(tmp_path / "live" / "moved-away")
    shutil.move(str(old), str(run))  # the approved copy, a real folder, at the address
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 2, err
    assert out == ""
    assert "no longer the run this wait started on" in err


def test_a_copy_put_in_place_before_the_wait_delivers_nothing_to_a_pinned_wait(
    tmp_path: Path,
) -> None:
    """The copy's handoff has the same id and payload, and a valid approval; only its
    bytes differ (each envelope names when it was made). A wait pinned to what this
    submit wrote refuses it, from the CLI and from Python alike."""
    old = _approved_copy(tmp_path)
    run = tmp_path / "live" / "run"
    done = cli(
        "submit",
        str(run),
        "--phase",
        "plan",
        "--schema",
        "plan/v1",
        "--json",
        "-",
        stdin=PLAN_BYTES,
    )
    assert done.returncode == 0, done.stderr
    submitted = json.loads(done.stdout)
    assert submitted["id"] == "0001-plan"
    run.rename(tmp_path / "live" / "moved-away")
    shutil.move(str(old), str(run))
    pinned = cli("wait", str(run), "0001-plan", "--sha256", submitted["sha256"], "--timeout", "5")
    assert pinned.returncode == 4, pinned.stderr
    assert pinned.stdout == ""
    ref = HandoffRef(str(run), submitted["id"], submitted["sha256"])
    assert hg.wait(run, ref, timeout=5).outcome is hg.WaitOutcome.CHANGED
    bare = cli("wait", str(run), "0001-plan", "--timeout", "5")
    assert bare.returncode == 0, "the unpinned form takes the folder at the path (documented)"
