"""Where a withdrawal lives on disk: the pipeline's own ``withdrawals/`` folder.

What a pipeline developer and a reviewer would notice: in the layout ``handoff-gate
init`` makes, the pipeline's account could not withdraw (``decisions/`` is the
reviewers'); junk planted where a withdrawal goes made a handoff approvable, or crashed
``list``/``show``; a run written by the previous version (``decisions/ID/withdrawn``)
came back to life; the TUI and listings missed a withdrawal in the new place.
"""

from __future__ import annotations

import json
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import BOUND, cli, submit
from other_account import (
    PIPELINE_UID,
    REVIEWER_UID,
    REVIEWERS_GID,
    account_python,
    as_account,
    as_pipeline,
    gate_as,
    gate_command,
    shared_folder,
    submit_as_pipeline,
)
from planted import UNREADABLE

from handoff_gate.gates.store.base import Change
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.fs_hints import hint_for


def test_the_pipeline_withdraws_in_the_init_layout_and_its_waiter_exits_6() -> None:
    with shared_folder() as root:
        run = root / "run"
        made = cli(
            "init", str(run), "--pipeline", str(PIPELINE_UID), "--reviewers", str(REVIEWERS_GID)
        )
        assert made.returncode == 0, made.stderr
        folder = (run / "withdrawals").stat()
        assert (folder.st_uid, folder.st_gid) == (PIPELINE_UID, REVIEWERS_GID)
        assert stat.S_IMODE(folder.st_mode) == 0o2755
        hid = submit_as_pipeline(run)
        waiting = subprocess.Popen(
            [*as_account(PIPELINE_UID, PIPELINE_UID), *gate_command(), "wait", str(run), hid,
             "--timeout", str(BOUND)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/",
        )  # fmt: skip
        withdrawn = as_pipeline("withdraw", str(run), hid, "--reason", "the job gave up")
        assert withdrawn.returncode == 0, withdrawn.stderr
        out, err = waiting.communicate(timeout=BOUND)
        assert waiting.returncode == 6, err
        assert out == "" and "the job gave up" in err
        assert (run / "withdrawals" / hid).stat().st_uid == PIPELINE_UID
        decided = gate_as(REVIEWER_UID, REVIEWERS_GID, "decide", str(run), hid, "approve")
        assert decided.returncode == 1 and "withdrawn" in decided.stderr
        listed = gate_as(REVIEWER_UID, REVIEWERS_GID, "list", str(run), "--json")
        assert [row["state"] for row in json.loads(listed.stdout)] == ["withdrawn"]
        assert not (run / "decisions" / hid).exists()


def _junk(path: Path) -> None:
    path.write_bytes(b"\x1b[31mnot a withdrawal")


PLANTS: dict[str, Callable[[Path], None]] = {
    **UNREADABLE,
    "junk": _junk,
}


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_junk_where_a_withdrawal_goes_withdraws_and_nothing_crashes(
    tmp_path: Path, kind: str
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    (run / "withdrawals").mkdir()
    PLANTS[kind](run / "withdrawals" / hid)
    listed = cli("list", str(run), "--json")
    assert listed.returncode == 0, listed.stderr
    assert [row["state"] for row in json.loads(listed.stdout)] == ["withdrawn"]
    shown = cli("show", str(run), hid)
    assert shown.returncode == 0, shown.stderr
    assert "state: withdrawn" in shown.stdout and "\x1b" not in shown.stdout
    decided = cli("decide", str(run), hid, "approve")
    assert decided.returncode == 1 and "withdrawn" in decided.stderr
    waited = cli("wait", str(run), hid, "--timeout", "0")
    assert waited.returncode == 6 and waited.stdout == ""
    again = cli("withdraw", str(run), hid)
    assert again.returncode == 1 and "already withdrawn" in again.stderr
    assert not (run / "decisions" / f"{hid}.json").exists()


def test_a_withdrawal_written_by_the_previous_version_still_counts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    legacy = run / "decisions" / hid
    legacy.mkdir(parents=True)
    record = {
        "handoff": hid,
        "run": "run",
        "by": "ci@old",
        "withdrawn_at": "2026-01-02T03:04:05.000Z",
        "reason": "old layout",
    }
    (legacy / "withdrawn").write_text(json.dumps(record))
    shown = cli("show", str(run), hid).stdout
    assert "state: withdrawn" in shown and "withdrawn by ci@old" in shown
    decided = cli("decide", str(run), hid, "approve")
    assert decided.returncode == 1 and "withdrawn" in decided.stderr
    assert cli("wait", str(run), hid, "--timeout", "0").returncode == 6


def test_a_withdrawal_moves_the_listing_stamp_and_is_hinted(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    store = FilesystemStore(tmp_path)
    before = store.listing("run")[0].decision_stamp
    assert cli("withdraw", str(run), hid).returncode == 0
    after = store.listing("run")
    assert after[0].decision_stamp is not None and after[0].decision_stamp != before
    assert store.listing("run", [hid])[0].decision_stamp == after[0].decision_stamp
    path = run / "withdrawals" / hid
    assert hint_for(tmp_path, path, root_is_run=False) == Change("run", hid)
    assert hint_for(run, path, root_is_run=True) == Change(".", hid)


def test_removing_a_withdrawal_never_approves(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    assert cli("withdraw", str(run), hid).returncode == 0
    (run / "withdrawals" / hid).unlink()
    listed = json.loads(cli("list", str(run), "--json").stdout)
    assert [row["state"] for row in listed] == ["pending"]
    waited = cli("wait", str(run), hid, "--timeout", "0")
    assert waited.returncode == 3 and waited.stdout == ""
    logged = [json.loads(line)["event"] for line in (run / "audit.jsonl").read_text().splitlines()]
    assert "handoff_withdrawn" in logged


SUBMIT_CALL = """
import sys
import handoff_gate as hg
with hg.Gate(sys.argv[1]) as gate:
    ref = gate.submit_tool_call(
        "run", tool="send_refund", args={"customer": "c1"}, call_id="call_a", thread="t1",
        json_schema={"type": "object", "properties": {"customer": {"type": "string"}}},
    )
print(ref.id)
"""


def test_the_pipeline_claims_a_tool_call_delivery_once_in_the_init_layout() -> None:
    """``init`` makes ``deliveries/`` the pipeline's: its waits record a delivery there."""
    with shared_folder() as root:
        run = root / "run"
        made = cli(
            "init", str(run), "--pipeline", str(PIPELINE_UID), "--reviewers", str(REVIEWERS_GID)
        )
        assert made.returncode == 0, made.stderr
        folder = (run / "deliveries").stat()
        assert (folder.st_uid, folder.st_gid, stat.S_IMODE(folder.st_mode)) == (
            PIPELINE_UID,
            REVIEWERS_GID,
            0o2755,
        )
        submitted = subprocess.run(
            [*as_account(PIPELINE_UID, PIPELINE_UID), account_python(), "-c", SUBMIT_CALL,
             str(root)],
            capture_output=True, text=True, timeout=BOUND, cwd="/",
        )  # fmt: skip
        assert submitted.returncode == 0, submitted.stderr
        hid = submitted.stdout.strip()
        decided = gate_as(REVIEWER_UID, REVIEWERS_GID, "decide", str(run), hid, "approve")
        assert decided.returncode == 0, decided.stderr
        first = as_pipeline("wait", str(run), hid, "--timeout", "0")
        second = as_pipeline("wait", str(run), hid, "--timeout", "0")
        assert (first.returncode, second.returncode) == (0, 7), second.stderr
        assert (run / "deliveries" / hid).stat().st_uid == PIPELINE_UID
        by_reviewer = gate_as(REVIEWER_UID, REVIEWERS_GID, "audit", str(run), "--verify")
        assert by_reviewer.returncode == 0, by_reviewer.stdout + by_reviewer.stderr
