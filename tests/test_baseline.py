"""Issue 19, item 5: the append-only baseline is the last approval.

A baton's decision log may only grow; the baseline it is compared with used to be the
latest earlier baton that was not rejected, so an agent could pick it. Each of the three
bypasses the issue names, acted out: submitting the rewritten baton twice, forging a
reject of the approved one, and emptying (or editing) the contract's index.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.audit.log import now_iso
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.findings import Code, Verdict
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")
STORE = FilesystemStore()
POLICY = """\
allowed_signers = "allowed_signers"

[[rule]]
phase = "baton"
approvers = ["alice"]
required = 1
"""


def _baton() -> dict[str, Any]:
    baton: dict[str, Any] = json.loads(example_path("baton/v1").read_bytes())
    return baton


def _rewritten() -> bytes:
    """The baton with its first logged decision quietly changed."""
    baton = _baton()
    baton["decision_log"][0] = {**baton["decision_log"][0], "decision": "Use the new store"}
    return json.dumps(baton).encode()


def _submit(run: Path, data: bytes) -> str:
    return submit(run, data, phase="baton", schema_id="baton/v1").id


def _blocked_as_rewrite(run: Path, hid: str, policy: Policy | None = None) -> bool:
    report = inspect_in_run(run, hid, REGISTRY, policy=policy, store=STORE)
    return Code.APPEND_ONLY in {f.code for f in report.blocking}


def _signed_setup(folder: Path) -> tuple[Policy, SigningKey]:
    key = folder / "alice"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f"alice {public}\n")
    (folder / "policy.toml").write_text(POLICY)
    return Policy.load(folder / "policy.toml"), SigningKey(key)


def test_an_undecided_rewrite_never_becomes_the_baseline(tmp_path: Path) -> None:
    run = tmp_path / "run"
    approved = _submit(run, json.dumps(_baton()).encode())
    decide(run, approved, "approve", registry=REGISTRY)
    first = _submit(run, _rewritten())
    second = _submit(run, _rewritten())
    assert _blocked_as_rewrite(run, first)
    assert _blocked_as_rewrite(run, second)  # compared with the approval, not with `first`


def test_a_forged_reject_does_not_unseat_the_approved_baseline(tmp_path: Path) -> None:
    policy, key = _signed_setup(tmp_path)
    run = tmp_path / "run"
    approved = _submit(run, json.dumps(_baton()).encode())
    decide(run, approved, "approve", registry=REGISTRY, key=key, policy=policy)
    forged = Decision(  # the agent's own unsigned reject of the approved baton
        handoff=approved,
        run=run.name,
        action="reject",
        reason="stale",
        reviewer="alice",
        decided_at=now_iso(),
        sha256=STORE.handoff_sha256(str(run), approved),
        verdict=Verdict.APPROVABLE,
    )
    (run / "decisions" / f"{approved}.json").write_text(forged.model_dump_json())
    rewrite = _submit(run, _rewritten())
    assert _blocked_as_rewrite(run, rewrite, policy)


def test_an_unsigned_approval_makes_no_baseline_under_a_policy(tmp_path: Path) -> None:
    policy, key = _signed_setup(tmp_path)
    run = tmp_path / "run"
    approved = _submit(run, json.dumps(_baton()).encode())
    decide(run, approved, "approve", registry=REGISTRY, key=key, policy=policy)
    rewrite = _submit(run, _rewritten())
    record = Decision(
        handoff=rewrite,
        run=run.name,
        action="approve",
        reviewer="agent",
        decided_at=now_iso(),
        sha256=STORE.handoff_sha256(str(run), rewrite),
        verdict=Verdict.APPROVABLE,
    )
    (run / "decisions" / f"{rewrite}.json").write_text(record.model_dump_json())
    again = _submit(run, _rewritten())
    assert _blocked_as_rewrite(run, again, policy)


def test_an_index_left_in_the_run_changes_no_baseline(tmp_path: Path) -> None:
    """Versions before kept ``handoffs/.index`` and the pipeline can write one: empty or
    naming another handoff, it is never read."""
    run = tmp_path / "run"
    approved = _submit(run, json.dumps(_baton()).encode())
    decide(run, approved, "approve", registry=REGISTRY)
    for _ in range(3):
        submit(run, example_path("plan/v1").read_bytes(), phase="plan", schema_id="plan/v1")
    index = run / "handoffs" / ".index"
    index.mkdir()
    planted = index / hashlib.sha256(b"baton/v1").hexdigest()
    planted.write_text("")  # emptied
    assert _blocked_as_rewrite(run, _submit(run, _rewritten()))
    planted.write_text("0003-plan\n")  # edited to name something else
    assert _blocked_as_rewrite(run, _submit(run, _rewritten()))


def test_the_baseline_is_the_approved_edit_not_the_producers_bytes(tmp_path: Path) -> None:
    """Issue 31, attack 4: a reviewer's edit adds an entry to the baton's decision log;
    the next baton drops it. What the next phase received was the edit, so dropping its
    entry is a rewrite of the log."""
    run = tmp_path / "run"
    first = _submit(run, json.dumps(_baton()).encode())
    edited = _baton()
    review_entry = {**edited["decision_log"][-1], "step_id": "review-3",
                    "decision": "Never include voided invoices"}  # fmt: skip
    edited["decision_log"].append(review_entry)
    decide(run, first, "approve", registry=REGISTRY, edited_payload=edited)
    dropped = _submit(run, json.dumps(_baton()).encode())
    assert _blocked_as_rewrite(run, dropped)
    kept = _submit(run, json.dumps(edited).encode())
    assert not _blocked_as_rewrite(run, kept)


def test_approvals_of_different_edits_do_not_add_up_to_a_quorum_baseline(tmp_path: Path) -> None:
    """Two approvers each approve a different edit under ``required = 2``: nothing was
    delivered, so nothing is a baseline, and a later rewrite is not judged against it."""
    trust = tmp_path / "trust"
    trust.mkdir()
    keys = {}
    lines = []
    for name in ("alice", "bob"):
        key = trust / name
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        keys[name] = SigningKey(key)
        lines.append(f"{name} {' '.join(key.with_suffix('.pub').read_text().split()[:2])}")
    (trust / "allowed_signers").write_text("\n".join(lines) + "\n")
    (trust / "policy.toml").write_text(
        POLICY.replace('approvers = ["alice"]', 'approvers = ["alice", "bob"]').replace(
            "required = 1", "required = 2"
        )
    )
    policy = Policy.load(trust / "policy.toml")
    run = tmp_path / "run"
    first = _submit(run, json.dumps(_baton()).encode())
    for name, step in (("alice", "a-1"), ("bob", "b-1")):
        edited = _baton()
        edited["decision_log"].append({**edited["decision_log"][-1], "step_id": step})
        decide(run, first, "approve", registry=REGISTRY, edited_payload=edited,
               key=keys[name], policy=policy)  # fmt: skip
    assert not _blocked_as_rewrite(run, _submit(run, _rewritten()), policy)
