"""Issue 31 item 3: ``init`` lays out everything the gate writes, so tool calls, stored
JSON Schema contracts and reviewers' edits work in the separated layout, each done by
the account that does it there (``setpriv``: the pipeline's and a reviewer's)."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

from cli_helpers import BOUND, PLAN_BYTES, cli
from other_account import (
    PIPELINE_UID,
    REVIEWER_UID,
    REVIEWERS_GID,
    account_python,
    as_account,
    as_pipeline,
    gate_as,
    shared_folder,
)

SCHEMA = {
    "type": "object",
    "properties": {"customer": {"type": "string"}, "amount_cents": {"type": "integer"}},
    "required": ["customer"],
}
SUBMIT_CALL = f"""
import sys
import handoff_gate as hg
with hg.Gate(sys.argv[1]) as gate:
    ref = gate.submit_tool_call(
        "run", tool="send_refund", args={{"customer": "c1", "amount_cents": 5}},
        call_id="call_a", thread="t1", json_schema={SCHEMA!r},
    )
print(ref.id)
"""


def _init(run: Path) -> None:
    made = cli("init", str(run), "--pipeline", str(PIPELINE_UID), "--reviewers", str(REVIEWERS_GID))
    assert made.returncode == 0, made.stderr


def _owner(path: Path) -> tuple[int, int, int]:
    found = path.stat()
    return found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)


def test_init_lays_out_contracts_for_the_pipeline_and_edits_for_reviewers() -> None:
    with shared_folder() as root:
        run = root / "run"
        _init(run)
        assert _owner(run / "contracts") == (PIPELINE_UID, REVIEWERS_GID, 0o2755)
        assert _owner(run / "contracts" / "ids") == (PIPELINE_UID, REVIEWERS_GID, 0o2755)
        assert _owner(run / "edits") == (0, REVIEWERS_GID, 0o3775)


def test_the_pipeline_submits_a_tool_call_and_a_json_schema_handoff_there() -> None:
    with shared_folder() as root:
        run = root / "run"
        _init(run)
        called = subprocess.run(
            [*as_account(PIPELINE_UID, PIPELINE_UID), account_python(), "-c", SUBMIT_CALL,
             str(root)],
            capture_output=True, text=True, timeout=BOUND, cwd="/",
        )  # fmt: skip
        assert called.returncode == 0, called.stderr
        schema = root / "plan.schema.json"
        schema.write_text(
            json.dumps({"type": "object", "properties": {"goal": {"type": "string"}}})
        )
        schema.chmod(0o644)
        added = as_pipeline("contracts", "add", str(run), "goal/v1", str(schema))
        assert added.returncode == 0, added.stderr
        submitted = as_pipeline(
            "submit", str(run), "--phase", "goal", "--schema", "goal/v1",
            "--json-schema", str(schema), "-", stdin='{"goal": "ship"}',
        )  # fmt: skip
        assert submitted.returncode == 0, submitted.stderr
        stored = [p for p in (run / "contracts").iterdir() if p.is_file()]
        assert stored and all(p.stat().st_uid == PIPELINE_UID for p in stored)
        listed = gate_as(REVIEWER_UID, REVIEWERS_GID, "list", str(run), "--json")
        assert listed.returncode == 0, listed.stderr
        assert len(json.loads(listed.stdout)) == 2


def test_a_reviewer_approves_an_edit_there_and_the_pipeline_cannot_remove_it() -> None:
    with shared_folder() as root:
        run = root / "run"
        _init(run)
        made = as_pipeline(
            "submit", str(run), "--phase", "plan", "--schema", "plan/v1", "-",
            stdin=PLAN_BYTES.decode(),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        hid = made.stdout.strip()
        edited = {**json.loads(PLAN_BYTES), "risks": ["Retries through the desk are missing"]}
        fixed = root / "fixed.json"
        fixed.write_text(json.dumps(edited))
        fixed.chmod(0o644)
        decided = gate_as(
            REVIEWER_UID, REVIEWERS_GID, "decide", str(run), hid, "approve", "--edit", str(fixed)
        )
        assert decided.returncode == 0, decided.stderr
        (kept,) = (run / "edits" / hid).iterdir()
        assert kept.stat().st_uid == REVIEWER_UID
        assert _owner(run / "edits" / hid)[2] == 0o3775
        removed = subprocess.run(
            [*as_account(PIPELINE_UID, PIPELINE_UID), "rm", "-f", str(kept)],
            capture_output=True, text=True, timeout=BOUND,
        )  # fmt: skip
        assert removed.returncode != 0 and kept.exists()
        waited = as_pipeline("wait", str(run), hid, "--timeout", "0")
        assert waited.returncode == 0, waited.stderr
        assert json.loads(waited.stdout)["risks"] == edited["risks"]


def test_init_on_an_older_init_run_adds_what_it_lacks_and_still_refuses_any_other_run(
    tmp_path: Path,
) -> None:
    with shared_folder() as root:
        run = root / "run"
        _init(run)
        shutil.rmtree(run / "contracts")
        shutil.rmtree(run / "edits")
        again = cli(
            "init", str(run), "--pipeline", str(PIPELINE_UID), "--reviewers", str(REVIEWERS_GID)
        )
        assert again.returncode == 0, again.stderr
        assert again.stdout.startswith("run completed")
        assert _owner(run / "contracts") == (PIPELINE_UID, REVIEWERS_GID, 0o2755)
        assert _owner(run / "edits") == (0, REVIEWERS_GID, 0o3775)
    plain = tmp_path / "plain"
    assert cli("submit", str(plain), "--phase", "plan", "--schema", "plan/v1", "-",
               stdin=PLAN_BYTES).returncode == 0  # fmt: skip
    refused = cli("init", str(plain), "--pipeline", str(PIPELINE_UID), "--reviewers", "1")
    assert refused.returncode == 2 and "is a run already" in refused.stderr


def test_init_on_a_database_store_points_to_its_roles_without_connecting(tmp_path: Path) -> None:
    """``init`` separates by OS accounts, which only run folders have: a database URL is
    refused in one line naming ``store init --roles``, before any connection is tried."""
    dead = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=30"
    done = cli("--store", dead, "init", "job-1", "--pipeline", "1000", "--reviewers", "1000")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "store init --roles" in done.stderr
