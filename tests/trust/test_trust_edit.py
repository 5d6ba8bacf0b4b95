"""A signed approval of an edit: the signature covers both digests, ``ssh-keygen`` agrees,
and a quorum counts only approvals of one byte string."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from trust_helpers import Keys, ssh_keygen_verify

from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.standing.quorum import approved_bytes, leading_approvals
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.trust.statement import DECISION_PREFIX, StatementError, decision_statement
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.schemas import example_path

PLAN_BYTES = example_path("plan/v1").read_bytes()
PLAN: dict[str, Any] = json.loads(PLAN_BYTES)
RUN = "run-1"


def _policy(folder: Path, keys: Keys, required: int) -> Policy:
    lines = [f"{name} {keys.public(getattr(keys, name))}" for name in ("alice", "bob")]
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    (folder / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        f'approvers = ["alice", "bob"]\nrequired = {required}\n'
    )
    return Policy.load(folder / "policy.toml")


def _gate(tmp_path: Path, keys: Keys, who: str, required: int) -> Gate:
    policy = _policy(tmp_path, keys, required)
    store = FilesystemStore(tmp_path)
    return Gate(store, contracts="", policy=policy, key=SigningKey(getattr(keys, who)))


def _submit(tmp_path: Path) -> Any:
    """A handoff submitted by the pipeline, which holds no reviewer's key."""
    with Gate(FilesystemStore(tmp_path), contracts="") as pipeline:
        return pipeline.submit(RUN, PLAN_BYTES, phase="plan", schema_id="plan/v1")


def test_ssh_keygen_verifies_an_edited_approval_over_both_digests(
    tmp_path: Path, keys: Keys
) -> None:
    with _gate(tmp_path, keys, "alice", 1) as gate:
        ref = _submit(tmp_path)
        decision = gate.decide(RUN, ref, "approve", edited_payload={**PLAN, "risks": ["late"]})
    assert decision.signature is not None and decision.log_head is not None
    statement = decision.statement("alice", decision.log_head)
    body = json.loads(statement.removeprefix(DECISION_PREFIX))
    assert body["sha256"] == ref.sha256
    assert body["edited_sha256"] == decision.edited_sha256
    signers = tmp_path / "allowed_signers"
    done = ssh_keygen_verify(signers, "alice", statement, decision.signature, tmp_path)
    assert done.returncode == 0, done.stderr
    unedited = decision.model_copy(update={"edited_sha256": None})
    plain = unedited.statement("alice", decision.log_head)
    refused = ssh_keygen_verify(signers, "alice", plain, decision.signature, tmp_path)
    assert refused.returncode != 0


def test_an_edit_swapped_in_the_signed_record_is_refused(tmp_path: Path, keys: Keys) -> None:
    """Pointing a signed approval at other edited bytes breaks its signature: the
    record is ignored, and nothing is delivered."""
    with _gate(tmp_path, keys, "alice", 1) as gate:
        ref = _submit(tmp_path)
        gate.decide(RUN, ref, "approve", edited_payload={**PLAN, "risks": ["late"]})
        other = gate.store.create_edit(RUN, ref.id, json.dumps({**PLAN, "risks": []}).encode())
        path = tmp_path / RUN / "decisions" / ref.id / "alice.json"
        record = json.loads(path.read_text())
        record["edited_sha256"] = other
        path.chmod(0o600)
        path.write_text(json.dumps(record))
        seen: list[str] = []
        result = gate.wait(RUN, ref, timeout=0, on_refused=seen.append)
    assert result.outcome is WaitOutcome.TIMEOUT
    assert any("signature" in line for line in seen)


def test_a_quorum_needs_its_approvals_on_one_byte_string(tmp_path: Path, keys: Keys) -> None:
    """Alice and Bob approving two different edits is one approval of each: no quorum,
    and each may decide only once. On another handoff the two agree on one edit, which
    is then delivered."""
    with _gate(tmp_path, keys, "alice", 2) as alice, _gate(tmp_path, keys, "bob", 2) as bob:
        split = _submit(tmp_path)
        alice.decide(RUN, split, "approve", edited_payload={**PLAN, "risks": ["a"]})
        bob.decide(RUN, split, "approve", edited_payload={**PLAN, "risks": ["b"]})
        assert alice.wait(RUN, split, timeout=0).outcome is WaitOutcome.TIMEOUT
        standing = alice.standing(RUN, split)
        assert standing.state is HandoffState.PENDING
        assert len(standing.decisions) == 2
        counted, others = leading_approvals(standing.decisions)
        assert [d.principal for d in counted] == ["alice"]
        assert [d.principal for d in others] == ["bob"]
        assert approved_bytes(others[0]).startswith("an edit (sha256 ")

        one_edit = {**PLAN, "risks": ["agreed"]}
        agreed = _submit(tmp_path)
        alice.decide(RUN, agreed, "approve", edited_payload=one_edit)
        assert alice.wait(RUN, agreed, timeout=0).outcome is WaitOutcome.TIMEOUT
        bob.decide(RUN, agreed, "approve", edited_payload=one_edit)
        result = alice.wait(RUN, agreed, timeout=5)
    assert result.outcome is WaitOutcome.APPROVED and result.edited
    assert result.payload is not None and result.payload["risks"] == ["agreed"]
    assert sorted(d.principal or "" for d in result.decisions) == ["alice", "bob"]
    assert {d.edited_sha256 for d in result.decisions} == {result.edited_sha256}


def test_an_unedited_approval_and_an_edit_do_not_make_a_quorum(tmp_path: Path, keys: Keys) -> None:
    with _gate(tmp_path, keys, "alice", 2) as alice, _gate(tmp_path, keys, "bob", 2) as bob:
        ref = _submit(tmp_path)
        alice.decide(RUN, ref, "approve")
        bob.decide(RUN, ref, "approve", edited_payload={**PLAN, "risks": ["b"]})
        assert alice.wait(RUN, ref, timeout=0).outcome is WaitOutcome.TIMEOUT


def test_an_edited_statement_adds_one_key_and_only_to_an_approval() -> None:
    fields: dict[str, Any] = {
        "run": "run-1",
        "handoff": "0001-plan",
        "sha256": "ab" * 32,
        "action": "approve",
        "reason": None,
        "category": None,
        "principal": "alice",
        "at": "2026-11-30T20:39:32.123Z",
        "log_head": "0" * 64,
    }
    plain = decision_statement(**fields)
    edit = hashlib.sha256(b"edit").hexdigest()
    with_edit = decision_statement(**fields, edited_sha256=edit)
    assert json.loads(with_edit.removeprefix(DECISION_PREFIX)) == {
        **json.loads(plain.removeprefix(DECISION_PREFIX)),
        "edited_sha256": edit,
    }
    with pytest.raises(StatementError, match="only an approval"):
        decision_statement(**{**fields, "action": "reject", "reason": "x"}, edited_sha256=edit)
    with pytest.raises(StatementError, match="edited_sha256"):
        decision_statement(**fields, edited_sha256="ABC")
