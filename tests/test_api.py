"""The pipeline API as a pipeline uses it: ``import handoff_gate as hg``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

import handoff_gate as hg
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.schemas import example_path

PLAN = json.loads(example_path("plan/v1").read_bytes())


class Plan(BaseModel):
    """A producer's own model of the plan (the gate's contract decides what crosses)."""

    problem_statement: str
    research_questions: list[str]
    hypotheses: list[str]
    success_criteria: list[str]
    constraints: list[str]
    recommended_profile: str
    risks: list[str]


def test_the_public_names_are_listed_and_typed() -> None:
    for name in ("submit", "wait", "wait_async", "decide", "inspect", "load_registry"):
        assert name in dir(hg)
        assert callable(getattr(hg, name))
    assert (Path(hg.__file__).parent / "py.typed").is_file()


def test_every_public_name_resolves_to_what_it_names() -> None:
    """``handoff_gate`` resolves a name on first use, so a module that moved (issue 18's
    stage folders) would break ``hg.Decision`` only when a pipeline touched it."""
    for name in hg.__all__:
        value = getattr(hg, name)
        assert value.__name__ == name
        assert value.__module__.startswith("handoff_gate.gates.")


@pytest.mark.parametrize(
    "payload",
    [
        json.dumps(PLAN).encode(),
        json.dumps(PLAN),
        PLAN,
        Plan.model_validate(PLAN),
    ],
    ids=["bytes", "str", "dict", "model"],
)
def test_any_payload_form_is_approved_and_delivered(tmp_path: Path, payload: object) -> None:
    run = str(tmp_path / "run")
    ref = hg.submit(run, payload, phase="plan", schema_id="plan/v1")  # type: ignore[arg-type]
    assert ref.id == "0001-plan"
    hg.decide(run, ref, "approve", reviewer="ana")
    result = hg.wait(run, ref, timeout=10)
    assert result.outcome == "approved"
    assert result.payload is not None and result.payload["problem_statement"]
    assert result.model is not None and result.report is not None


def test_bytes_are_kept_exactly(tmp_path: Path) -> None:
    odd = b'{"problem_statement":  "spaced"   }'
    ref = hg.submit(tmp_path, odd, phase="plan", schema_id="plan/v1")
    assert (
        json.loads(FilesystemStore().handoff_bytes(ref.run, ref.id, 1 << 20))["raw"].encode() == odd
    )


def test_a_reject_carries_its_reason_and_the_findings(tmp_path: Path) -> None:
    ref = hg.submit(tmp_path, {**PLAN, "risks": []}, phase="plan", schema_id="plan/v1")
    hg.decide(tmp_path, ref.id, "reject", reason="name the risks", reviewer="ana")
    result = hg.wait(tmp_path, ref.id, timeout=10)
    assert result.outcome == "rejected" and result.payload is None
    assert result.decision is not None and result.decision.reason == "name the risks"
    assert result.report is not None and result.report.findings


def test_mistakes_are_errors_before_anything_is_stored(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown schema"):
        hg.submit(tmp_path, PLAN, phase="plan", schema_id="nope/v1")
    with pytest.raises(TypeError):
        hg.submit(tmp_path, 42, phase="plan", schema_id="plan/v1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        hg.submit(42, PLAN, phase="plan", schema_id="plan/v1")  # type: ignore[arg-type]
    assert not (tmp_path / "handoffs").exists() or not list((tmp_path / "handoffs").iterdir())


def test_an_idempotency_key_makes_a_rerun_find_its_handoff(tmp_path: Path) -> None:
    first = hg.submit(tmp_path, PLAN, phase="plan", schema_id="plan/v1", idempotency_key="n1")
    again = hg.submit(tmp_path, PLAN, phase="plan", schema_id="plan/v1", idempotency_key="n1")
    assert again.id == first.id == "0001-plan"
    with pytest.raises(ValueError, match="0001-plan"):
        hg.submit(
            tmp_path,
            {**PLAN, "risks": ["x"]},
            phase="plan",
            schema_id="plan/v1",
            idempotency_key="n1",
        )
    other = hg.submit(tmp_path, PLAN, phase="plan", schema_id="plan/v1", idempotency_key="n2")
    assert other.id == "0002-plan"


def test_submit_into_missing_parent_folders_creates_them_as_mkdir_p(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "team" / "job-17"
    ref = hg.submit(run, PLAN, phase="plan", schema_id="plan/v1")
    assert ref.id == "0001-plan"
    assert (run / "handoffs" / "0001-plan.json").is_file()
    assert hg.submit(str(run), PLAN, phase="plan", schema_id="plan/v1").id == "0002-plan"
