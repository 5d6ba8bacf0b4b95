"""Issue 31, attack 2 and the stored-contract check: ``audit --verify`` sees a handoff
rewritten after a signed decision even when the rewriter appends a correctly chained
``handoff_submitted`` event for the new bytes, and sees a stored contract that is not
what its name says, or missing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cli_helpers import PLAN_BYTES, cli
from signed_policy import signed_policy

import handoff_gate as hg
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.log import Event
from handoff_gate.gates.store.filesystem import FilesystemStore

SCHEMA = {"type": "object", "properties": {"goal": {"type": "string"}}}


def test_a_rewrite_blessed_by_one_more_chained_event_is_still_reported(tmp_path: Path) -> None:
    """The pipeline rewrites its handoff and appends a chained event for the new bytes;
    a reviewer then signs for those. The first logged sha256 is the handoff's."""
    trust = signed_policy(tmp_path / "trust")
    run = tmp_path / "runs" / "job-1"
    hid = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "-",
              stdin=PLAN_BYTES).stdout.strip()  # fmt: skip
    path = run / "handoffs" / f"{hid}.json"
    envelope = json.loads(path.read_bytes())
    envelope["created"] = envelope["created"][:-2] + "9Z"
    path.write_text(json.dumps(envelope))
    fresh = hashlib.sha256(path.read_bytes()).hexdigest()
    audit.append(run, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff=hid, sha256=fresh)
    approved = cli("decide", str(run), hid, "approve",
                   "--key", str(trust.alice), "--policy", str(trust.policy))  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    verified = cli("audit", str(run), "--verify", "--policy", str(trust.policy))
    said = verified.stdout + verified.stderr
    assert verified.returncode != 0
    assert f"handoff {hid} was submitted 2 times" in said
    assert f"is for sha256 {fresh}, but the handoff was first submitted as" in said
    assert f"handoff {hid} changed after it was submitted" in said


def test_a_stored_contract_with_other_bytes_or_missing_is_reported(tmp_path: Path) -> None:
    with hg.Gate(tmp_path) as gate:
        gate.submit("job-1", b'{"goal": "x"}', phase="p", schema_id="g/v1", json_schema=SCHEMA)
        assert gate.verify("job-1") == []
    run = tmp_path / "job-1"
    (document,) = [p for p in (run / "contracts").iterdir() if p.is_file()]
    document.write_text(json.dumps({"type": "object"}))
    with hg.Gate(tmp_path) as gate:
        problems = gate.verify("job-1")
    assert any("holds another document" in p for p in problems), problems
    document.unlink()
    for claim in (run / "contracts" / "ids").iterdir():
        claim.unlink()
    with hg.Gate(tmp_path) as gate:
        problems = gate.verify("job-1")
    assert any("which the run does not hold" in p for p in problems), problems
