"""Deliver only what you submitted: ``submit --json`` names the bytes stored, and
``wait --sha256`` / ``hg.wait(ref)`` deliver nothing else, even an approved rewrite."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cli_helpers import PLAN_BYTES, cli

import handoff_gate as hg
from handoff_gate.gates.store.filesystem import FilesystemStore


def _submit_json(run: Path) -> dict[str, Any]:
    done = cli(
        "submit", str(run), "--phase", "plan", "--schema", "plan/v1", "--json", "-",
        stdin=PLAN_BYTES,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    submitted: dict[str, Any] = json.loads(done.stdout)
    return submitted


def _rewrite(run: Path, handoff_id: str) -> None:
    """What an agent with write access to the run does: a valid envelope, other bytes."""
    path = run / "handoffs" / f"{handoff_id}.json"
    envelope = json.loads(path.read_bytes())
    plan = json.loads(envelope["raw"])
    plan["risks"] = ["none, trust me"]
    envelope["raw"] = json.dumps(plan)
    path.write_text(json.dumps(envelope, indent=2) + "\n")


def test_submit_json_prints_the_run_the_id_and_the_stored_files_sha256(tmp_path: Path) -> None:
    submitted = _submit_json(tmp_path)
    assert set(submitted) == {"run", "id", "sha256", "payload_sha256"}
    assert submitted["payload_sha256"] == hashlib.sha256(PLAN_BYTES).hexdigest()
    assert submitted["payload_sha256"] != submitted["sha256"]  # the bytes vs the stored file
    assert submitted["run"] == str(tmp_path)
    assert submitted["id"] == "0001-plan"
    stored = FilesystemStore().handoff_sha256(str(tmp_path), "0001-plan")
    assert submitted["sha256"] == stored


def test_wait_sha256_delivers_the_bytes_submitted(tmp_path: Path) -> None:
    submitted = _submit_json(tmp_path)
    assert cli("decide", str(tmp_path), "0001-plan", "approve").returncode == 0
    done = cli("wait", str(tmp_path), "0001-plan", "--sha256", submitted["sha256"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(PLAN_BYTES)


def test_an_approved_rewrite_is_not_delivered_to_wait_sha256(tmp_path: Path) -> None:
    submitted = _submit_json(tmp_path)
    _rewrite(tmp_path, "0001-plan")
    assert cli("decide", str(tmp_path), "0001-plan", "approve").returncode == 0
    done = cli("wait", str(tmp_path), "0001-plan", "--sha256", submitted["sha256"])
    assert done.returncode == 4
    assert done.stdout == ""
    assert "is not the handoff that was submitted" in done.stderr
    # Without the digest the rewrite is what the reviewer approved, and it is delivered:
    # only --sha256 ties the wait to what this pipeline wrote.
    unpinned = cli("wait", str(tmp_path), "0001-plan")
    assert unpinned.returncode == 0
    assert json.loads(unpinned.stdout)["risks"] == ["none, trust me"]


def test_wait_sha256_of_other_bytes_ends_at_once_without_a_decision(tmp_path: Path) -> None:
    """A wait that can never deliver does not block until someone decides."""
    submitted = _submit_json(tmp_path)
    other = "0" * 64 if submitted["sha256"] != "0" * 64 else "1" * 64
    done = cli("wait", str(tmp_path), "0001-plan", "--sha256", other, "--timeout", "3600")
    assert done.returncode == 4
    assert other in done.stderr


def test_wait_sha256_must_be_a_sha256(tmp_path: Path) -> None:
    _submit_json(tmp_path)
    for bad in ("", "abc", "g" * 64):
        done = cli("wait", str(tmp_path), "0001-plan", "--sha256", bad, "--timeout", "0")
        assert done.returncode == 2
        assert "64 hex digits" in done.stderr


def test_hg_wait_with_the_ref_from_submit_refuses_an_approved_rewrite(tmp_path: Path) -> None:
    ref = hg.submit(tmp_path, PLAN_BYTES, phase="plan", schema_id="plan/v1")
    _rewrite(tmp_path, ref.id)
    hg.decide(tmp_path, ref.id, "approve")
    result = hg.wait(tmp_path, ref, timeout=0)
    assert result.outcome == "changed"
    assert result.payload is None
    # By id alone the caller did not say which bytes it wrote: the approval stands.
    assert hg.wait(tmp_path, ref.id, timeout=0).outcome == "approved"


async def test_hg_wait_async_with_the_ref_checks_the_bytes_too(tmp_path: Path) -> None:
    ref = hg.submit(tmp_path, PLAN_BYTES, phase="plan", schema_id="plan/v1")
    _rewrite(tmp_path, ref.id)
    hg.decide(tmp_path, ref.id, "approve")
    assert (await hg.wait_async(tmp_path, ref, timeout=0)).outcome == "changed"
    assert (await hg.wait_async(tmp_path, ref.id, timeout=0)).outcome == "approved"
