"""Edit, then approve: the reviewer's edited payload is inspected against the handoff's
contract, kept beside the decision by its sha256, and delivered in place of the
producer's bytes, with both digests on record. Each test runs on both stores."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from handoff_gate.gates.decide.decisions import DecisionRefused, EditRefused
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.schemas import example_path

PLAN_BYTES = example_path("plan/v1").read_bytes()
PLAN: dict[str, Any] = json.loads(PLAN_BYTES)
RUN = "run-1"


def edited(**changes: Any) -> dict[str, Any]:
    return {**PLAN, **changes}


@pytest.fixture(params=["fs", "pg"])
def gate(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Gate]:
    store: RunStore
    if request.param == "fs":
        store = FilesystemStore(tmp_path)
    else:
        url: str = request.getfixturevalue("pg_url")
        with psycopg.connect(url, autocommit=True) as conn:
            init_schema(conn, roles=True)
        store = PostgresStore(url)
    try:
        with Gate(store, contracts="") as made:
            yield made
    finally:
        store.close()


def _submit(gate: Gate) -> Any:
    return gate.submit(RUN, PLAN_BYTES, phase="plan", schema_id="plan/v1")


def _events(gate: Gate, name: str) -> list[dict[str, Any]]:
    return [e for e in gate.audit_events(RUN) if e["event"] == name]


def test_an_approved_edit_is_delivered_with_the_original_reachable(gate: Gate) -> None:
    ref = _submit(gate)
    fixed = edited(recommended_profile="library")
    decision = gate.decide(RUN, ref, "approve", edited_payload=fixed, reviewer="ana")
    kept = (json.dumps(fixed, ensure_ascii=True, indent=2) + "\n").encode()
    assert decision.edited_sha256 == hashlib.sha256(kept).hexdigest()
    assert decision.sha256 == ref.sha256
    assert gate.store.edit_bytes(RUN, ref.id, decision.edited_sha256, 10_000) == kept

    result = gate.wait(RUN, ref, timeout=5)
    assert result.outcome is WaitOutcome.APPROVED
    assert result.edited is True
    assert result.payload is not None and result.payload["recommended_profile"] == "library"
    assert result.model is not None and result.model.recommended_profile == "library"  # type: ignore[attr-defined]
    assert result.edited_sha256 == decision.edited_sha256
    assert result.original_sha256 == ref.sha256
    assert result.original_payload is not None
    assert result.original_payload["recommended_profile"] == PLAN["recommended_profile"]

    written = _events(gate, "decision_written")
    assert [(e["sha256"], e["edited_sha256"], e["edited_by"]) for e in written] == [
        (ref.sha256, decision.edited_sha256, "ana")
    ]
    returned = _events(gate, "wait_returned")
    assert [(e["outcome"], e["edited_sha256"]) for e in returned] == [
        ("approved", decision.edited_sha256)
    ]
    standing = gate.standing(RUN, ref)
    assert standing.state is HandoffState.APPROVED
    assert standing.named is not None and standing.named.edited_sha256 == decision.edited_sha256


def test_an_unedited_approval_says_so_and_keeps_its_old_record_shape(gate: Gate) -> None:
    ref = _submit(gate)
    decision = gate.decide(RUN, ref, "approve")
    assert decision.edited_sha256 is None
    assert b"edited_sha256" not in gate.store.decision_records(RUN, ref.id)[None]
    result = gate.wait(RUN, ref, timeout=5)
    assert result.edited is False and result.edited_sha256 is None
    assert result.original_sha256 == ref.sha256
    assert result.payload == result.original_payload


def test_an_edit_that_adds_a_secret_is_refused_and_nothing_is_written(gate: Gate) -> None:
    ref = _submit(gate)
    leaky = edited(constraints=["use the key AKIAIOSFODNN7EXAMPLE for billing"])
    with pytest.raises(EditRefused, match="not approvable \\(secret\\)") as refused:
        gate.decide(RUN, ref, "approve", edited_payload=leaky)
    assert Code.SECRET in {f.code for f in refused.value.report.blocking}
    assert gate.store.decision_records(RUN, ref.id) == {}
    digest = hashlib.sha256(
        (json.dumps(leaky, ensure_ascii=True, indent=2) + "\n").encode()
    ).hexdigest()
    with pytest.raises(FileNotFoundError):
        gate.store.edit_bytes(RUN, ref.id, digest, 10_000)
    assert [e["why"] for e in _events(gate, "decision_refused")] == [str(refused.value)]
    assert gate.standing(RUN, ref).state is HandoffState.PENDING


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b'{"problem_statement": "only this"}', Code.MISSING_FIELD),
        (b"not json at all", Code.NOT_JSON),
        (json.dumps(edited(research_questions="one string")).encode(), Code.INVALID_FIELD),
    ],
)
def test_an_edit_the_contract_does_not_accept_is_refused(
    gate: Gate, payload: bytes, code: Code
) -> None:
    ref = _submit(gate)
    with pytest.raises(EditRefused) as refused:
        gate.decide(RUN, ref, "approve", edited_payload=payload)
    assert code in {f.code for f in refused.value.report.blocking}
    assert gate.store.decision_records(RUN, ref.id) == {}


def test_an_edit_cannot_unblock_a_blocked_handoff(gate: Gate) -> None:
    ref = gate.submit(RUN, b'{"problem_statement": 1}', phase="plan", schema_id="plan/v1")
    with pytest.raises(DecisionRefused, match="blocked"):
        gate.decide(RUN, ref, "approve", edited_payload=PLAN)
    assert gate.store.decision_records(RUN, ref.id) == {}


def test_only_an_approval_carries_an_edit(gate: Gate) -> None:
    ref = _submit(gate)
    with pytest.raises(ValueError, match="only an approval"):
        gate.decide(RUN, ref, "reject", reason="no", edited_payload=PLAN)
    with pytest.raises(TypeError, match="bytes or a dict"):
        gate.decide(RUN, ref, "approve", edited_payload=["a list"])  # type: ignore[arg-type]
    assert gate.store.decision_records(RUN, ref.id) == {}


def test_exact_edited_bytes_are_kept_and_hashed_as_given(gate: Gate) -> None:
    ref = _submit(gate)
    raw = json.dumps(edited(risks=["late data"]), separators=(",", ":")).encode() + b"\r\n"
    decision = gate.decide(RUN, ref, "approve", edited_payload=raw)
    assert decision.edited_sha256 == hashlib.sha256(raw).hexdigest()
    assert gate.store.edit_bytes(RUN, ref.id, decision.edited_sha256, 10_000) == raw
    result = gate.wait(RUN, ref, timeout=5)
    assert result.payload is not None and result.payload["risks"] == ["late data"]


def test_an_edit_altered_after_approval_delivers_nothing(tmp_path: Path) -> None:
    """A swapped edit file no longer hashes to the digest the decision names: the wait
    fails closed (``changed``), never delivering the swapped bytes."""
    with Gate(FilesystemStore(tmp_path), contracts="") as gate:
        ref = _submit(gate)
        decision = gate.decide(RUN, ref, "approve", edited_payload=edited(risks=["a"]))
        path = tmp_path / RUN / "edits" / ref.id / f"{decision.edited_sha256}.json"
        assert gate.verify(RUN) == []
        path.chmod(0o600)
        path.write_bytes(json.dumps(edited(risks=["b"])).encode())
        result = gate.wait(RUN, ref, timeout=5)
        assert result.outcome is WaitOutcome.CHANGED
        assert result.payload is None
        assert any(
            "approves an edit that is unusable" in p and "altered" in p for p in gate.verify(RUN)
        )
        path.unlink()
        assert gate.wait(RUN, ref, timeout=5).outcome is WaitOutcome.CHANGED
