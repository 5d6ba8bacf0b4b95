"""The pydantic-ai output validator against the real library and its offline models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel
from signed_policy import signed_policy

from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.filesystem import FilesystemStore, list_handoffs
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.integrations.feedback import HandoffNotApproved
from handoff_gate.schemas import example_path
from handoff_gate.schemas.planning import Plan

if TYPE_CHECKING:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
    )
    from pydantic_ai.models.function import AgentInfo


PLAN = json.loads(example_path("plan/v1").read_bytes())
REGISTRY = load_registry("")
BOUND = 30.0


async def _review(run: Path, actions: list[tuple[str, str | None]]) -> list[str]:
    """Decide each new handoff in turn, like a person at the TUI; return their ids."""
    seen: list[str] = []
    async with asyncio.timeout(BOUND):
        for action, reason in actions:
            while len(refs := list_handoffs(run)) <= len(seen):
                await asyncio.sleep(0.01)
            hid = refs[len(seen)].id
            decide(run, hid, action, reason=reason, registry=REGISTRY)
            seen.append(hid)
    return seen


def _retry_texts(messages: list[ModelMessage]) -> list[str]:
    """What the model was told about its earlier outputs (a retry prompt or a tool return)."""
    from pydantic_ai.messages import ModelRequest, RetryPromptPart, ToolReturnPart

    return [
        str(part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, RetryPromptPart | ToolReturnPart)
    ]


async def test_an_approved_output_is_the_delivered_payload_as_the_output_type(
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    agent.output_validator(approval_gate(tmp_path, phase="plan", schema_id="plan/v1"))
    reviewer = asyncio.create_task(_review(tmp_path, [("approve", None)]))
    result = await agent.run("plan the churn study")
    (hid,) = await reviewer
    assert isinstance(result.output, Plan)
    assert result.output.model_dump(mode="json", by_alias=True) == PLAN
    envelope = json.loads(_stored(list_handoffs(tmp_path)[0]))
    assert envelope["producer"]["model"] == "test"
    assert json.loads(envelope["raw"]) == PLAN  # what the model said, as it said it
    assert hid == "0001-plan"


async def test_a_reject_reprompts_the_model_with_the_reason_and_findings(tmp_path: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    prompts: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts.append(_retry_texts(messages))
        risks = ["churn data may be stale"] if prompts[-1] else []
        args = json.dumps({**PLAN, "risks": risks})
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    agent = Agent(FunctionModel(model), output_type=Plan, retries=3)
    agent.output_validator(approval_gate(str(tmp_path), phase="plan", schema_id="plan/v1"))
    reviewer = asyncio.create_task(
        _review(tmp_path, [("reject", "name at least one risk"), ("approve", None)])
    )
    result = await agent.run("plan the churn study")
    assert await reviewer == ["0001-plan", "0002-plan"]
    assert result.output.model_dump()["risks"] == ["churn data may be stale"]
    (retry,) = prompts[1]
    assert "name at least one risk" in retry
    assert "risks" in retry  # the empty-list finding travels with the reason


async def test_partial_outputs_while_streaming_are_not_submitted(tmp_path: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    text = json.dumps(PLAN)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        name = info.output_tools[0].name
        for start in range(0, len(text), 40):
            yield {
                0: DeltaToolCall(
                    name=name if start == 0 else None, json_args=text[start : start + 40]
                )
            }

    agent = Agent(FunctionModel(stream_function=stream), output_type=Plan)
    agent.output_validator(approval_gate(tmp_path, phase="plan", schema_id="plan/v1"))
    reviewer = asyncio.create_task(_review(tmp_path, [("approve", None)]))
    async with agent.run_stream("plan") as run:
        outputs = [output async for output in run.stream_output(debounce_by=None)]
    await reviewer
    assert len(outputs) > 1
    assert [r.id for r in list_handoffs(tmp_path)] == ["0001-plan"]


async def test_a_timeout_is_an_error_not_an_output(tmp_path: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    agent.output_validator(approval_gate(tmp_path, phase="plan", schema_id="plan/v1", timeout=0))
    with pytest.raises(HandoffNotApproved, match="timeout"):
        await agent.run("plan")


def _stored(ref: HandoffRef) -> bytes:
    return FilesystemStore().handoff_bytes(ref.run, ref.id, 1 << 20)


class Note(BaseModel):
    """A contract only the pipeline's own registry knows."""

    text: str


def _note_registry(tmp_path: Path) -> Registry:
    spec = tmp_path / "note_contracts.py"
    spec.write_text(
        "from pydantic import BaseModel\n"
        "class Note(BaseModel):\n"
        '    """A free-form note."""\n'
        "    text: str\n"
        'SCHEMAS = {"note/v1": Note}\n'
    )
    return load_registry(str(spec))


async def test_an_explicit_registry_is_used_to_submit_without_the_env_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B1: the registry went to the wait only, so submit refused "unknown schema"."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    monkeypatch.delenv("HANDOFF_GATE_SCHEMAS", raising=False)
    registry = _note_registry(tmp_path)
    run = tmp_path / "run"
    agent = Agent(TestModel(custom_output_args={"text": "hello"}), output_type=Note)
    agent.output_validator(approval_gate(run, phase="note", schema_id="note/v1", registry=registry))

    async def review() -> None:
        while not list_handoffs(run):
            await asyncio.sleep(0.01)
        decide(run, "0001-note", "approve", registry=registry)

    async with asyncio.timeout(BOUND):
        reviewer = asyncio.create_task(review())
        result = await agent.run("a note")
        await reviewer
    assert result.output == Note(text="hello")


async def test_an_idempotency_key_makes_a_rerun_find_the_same_handoff(tmp_path: Path) -> None:
    """B5: each re-run after a timeout left another handoff nobody waited on."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    gate = approval_gate(
        tmp_path,
        phase="plan",
        schema_id="plan/v1",
        timeout=0,
        idempotency_key="job-5:plan",
        withdraw_on_timeout=False,
    )
    agent.output_validator(gate)
    for _ in range(2):
        with pytest.raises(HandoffNotApproved, match="timeout"):
            await agent.run("plan")
    assert [r.id for r in list_handoffs(tmp_path)] == ["0001-plan"]
    decide(tmp_path, "0001-plan", "approve", registry=REGISTRY)
    result = await agent.run("plan")
    assert result.output.model_dump(mode="json", by_alias=True) == PLAN
    assert [r.id for r in list_handoffs(tmp_path)] == ["0001-plan"]


async def test_a_policy_from_the_environment_ignores_an_unsigned_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B6: the adapters never read HANDOFF_GATE_POLICY: anyone who could write the run
    approved, silently. ``store=`` places the run where the pipeline keeps its runs."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    trust = signed_policy(tmp_path / "trust")
    monkeypatch.setenv("HANDOFF_GATE_POLICY", str(trust.policy))
    runs = tmp_path / "runs"
    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    agent.output_validator(
        approval_gate(
            "job-6",
            phase="plan",
            schema_id="plan/v1",
            timeout=0,
            store=runs,
            idempotency_key="job-6",
            withdraw_on_timeout=False,
        )
    )
    with pytest.raises(HandoffNotApproved):
        await agent.run("plan")
    with monkeypatch.context() as unpinned:  # as an agent writing the run would
        unpinned.delenv("HANDOFF_GATE_POLICY")
        decide(runs / "job-6", "0001-plan", "approve", registry=REGISTRY)
    with pytest.raises(HandoffNotApproved, match="timeout"):
        await agent.run("plan")
    with Gate(runs, policy=trust.policy, key=trust.alice) as alice:
        alice.decide("job-6", "0001-plan", "approve")
    result = await agent.run("plan")
    assert isinstance(result.output, Plan)


async def test_an_explicit_policy_counts_only_its_approvers(tmp_path: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    trust = signed_policy(tmp_path / "trust")
    run = tmp_path / "run"
    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    agent.output_validator(
        approval_gate(
            run, phase="plan", schema_id="plan/v1", timeout=0, policy=trust.policy,
            idempotency_key="job-7", withdraw_on_timeout=False,
        )
    )  # fmt: skip
    with pytest.raises(HandoffNotApproved):
        await agent.run("plan")
    decide(run, "0001-plan", "approve", registry=REGISTRY)  # unsigned: not alice
    with pytest.raises(HandoffNotApproved, match="timeout"):
        await agent.run("plan")
    with Gate(policy=trust.policy, key=trust.alice) as alice:
        alice.decide(run, "0001-plan", "approve")
    assert isinstance((await agent.run("plan")).output, Plan)


async def test_with_an_idempotency_key_each_retry_after_a_reject_is_a_new_handoff(
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        risks = ["churn data may be stale"] if _retry_texts(messages) else []
        args = json.dumps({**PLAN, "risks": risks})
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    agent = Agent(FunctionModel(model), output_type=Plan, retries=3)
    gate = approval_gate(tmp_path, phase="plan", schema_id="plan/v1", idempotency_key="job-8")
    agent.output_validator(gate)
    reviewer = asyncio.create_task(_review(tmp_path, [("reject", "a risk"), ("approve", None)]))
    result = await agent.run("plan")
    assert await reviewer == ["0001-plan", "0002-plan"]
    assert result.output.risks == ["churn data may be stale"]


async def test_a_key_signs_each_output_as_the_phase_producer(tmp_path: Path) -> None:
    """B6: without ``key=`` a phase whose rule names producers could never pass."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    trust = signed_policy(tmp_path / "trust", producers=True)
    signed, unsigned = tmp_path / "signed", tmp_path / "unsigned"
    for run, key in ((signed, trust.planner), (unsigned, None)):
        agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
        agent.output_validator(
            approval_gate(
                run, phase="plan", schema_id="plan/v1", timeout=0, policy=trust.policy,
                key=key, idempotency_key="job-9", withdraw_on_timeout=False,
            )
        )  # fmt: skip
        with pytest.raises(HandoffNotApproved):
            await agent.run("plan")
    with Gate(policy=trust.policy) as gate:
        assert gate.standing(signed, "0001-plan").state.value == "pending"
        codes = {f.code.value for f in gate.inspect(unsigned, "0001-plan").findings}
    assert "unsigned_handoff" in codes
    with Gate(policy=trust.policy, key=trust.alice) as alice:
        alice.decide(signed, "0001-plan", "approve")
    agent = Agent(TestModel(custom_output_args=PLAN), output_type=Plan)
    agent.output_validator(
        approval_gate(
            signed, phase="plan", schema_id="plan/v1", timeout=0, policy=trust.policy,
            key=trust.planner, idempotency_key="job-9",
        )
    )  # fmt: skip
    assert isinstance((await agent.run("plan")).output, Plan)
