"""pydantic-ai deferred tool calls through the gate, against the real library and its
offline ``FunctionModel``: ``tool_approvals`` in a run, ``resolve_tool_approvals`` out
of band, a person simulated by real ``decide`` calls."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import TypeAdapter

import handoff_gate as hg
from integrations.tool_reviewer import BOUND, approver_policy, calls_in, review

if TYPE_CHECKING:
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import DeferredToolRequests


REFUND = {
    "type": "object",
    "properties": {"customer": {"type": "string"}, "amount_cents": {"type": "integer"}},
    "required": ["customer", "amount_cents"],
    "additionalProperties": False,
}


def scripted(*calls: tuple[str, str]) -> FunctionModel:
    """A model that makes ``calls`` (call id, argument JSON) in one turn, then says what
    each tool returned, so the test reads what the model was told."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            return ModelResponse(parts=[TextPart("\n".join(str(r.content) for r in returns))])
        parts = [ToolCallPart("send_refund", args, tool_call_id=cid) for cid, args in calls]
        return ModelResponse(parts=parts)

    return FunctionModel(model)


def refund_agent(
    model: FunctionModel, ran: list[dict[str, Any]], **kwargs: Any
) -> Agent[None, Any]:
    """An agent whose refund tool takes its schema as data (``Tool.from_schema``, no
    validation by pydantic-ai), so the gate's contract is the only check on the arguments."""
    from pydantic_ai import Agent, ApprovalRequired, Tool

    def send_refund(ctx: RunContext[None], **args: Any) -> str:
        if not ctx.tool_call_approved:
            raise ApprovalRequired
        ran.append(args)
        return f"refunded {json.dumps(args, sort_keys=True)}"

    tool = Tool.from_schema(
        send_refund, "send_refund", "Refund a customer.", REFUND, takes_ctx=True
    )
    return Agent(model, tools=[tool], name="support", **kwargs)


async def test_approved_calls_run_with_the_validated_arguments_and_are_waited_on_together(
    tmp_path: Path,
) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    ran: list[dict[str, Any]] = []
    model = scripted(
        ("call_a", '{"customer": "c1", "amount_cents": 500}'),
        ("call_b", '{"customer": "c2", "amount_cents": 7}'),
    )
    agent = refund_agent(model, ran, capabilities=[tool_approvals(tmp_path / "job-17")])
    plan = {"call_a": ("approve", None), "call_b": ("approve", None)}
    reviewer = asyncio.create_task(review(tmp_path / "job-17", plan))
    await agent.run("refund both")
    ids = await reviewer
    assert sorted(ran, key=lambda a: a["customer"]) == [
        {"customer": "c1", "amount_cents": 500},
        {"customer": "c2", "amount_cents": 7},
    ]
    assert sorted(ids.values()) == ["0001-tool-call", "0002-tool-call"]
    with hg.Gate(tmp_path) as gate:
        envelope = gate.inspect("job-17", ids["call_a"]).envelope
    assert envelope is not None and envelope.tool is not None
    assert (envelope.tool.name, envelope.tool.agent) == ("send_refund", "support")
    assert envelope.tool.description == "Refund a customer."


async def test_a_reject_tells_the_model_the_reason_once_and_the_tool_does_not_run(
    tmp_path: Path,
) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    ran: list[dict[str, Any]] = []
    model = scripted(("call_a", '{"customer": "c1", "amount_cents": 500}'))
    agent = refund_agent(model, ran, capabilities=[tool_approvals(tmp_path / "job-17")])
    plan = {"call_a": ("reject", "over the refund limit")}
    reviewer = asyncio.create_task(review(tmp_path / "job-17", plan))
    result = await agent.run("refund")
    await reviewer
    assert ran == []
    assert (
        result.output
        == "A reviewer rejected the call to send_refund. Reason: over the refund limit"
    )


async def test_invalid_arguments_are_denied_without_asking_anyone(tmp_path: Path) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    ran: list[dict[str, Any]] = []
    model = scripted(("call_a", '{"customer": "c1", "amount_cents": "lots"}'))
    agent = refund_agent(model, ran, capabilities=[tool_approvals(tmp_path / "job-17")])
    result = await asyncio.wait_for(agent.run("refund"), BOUND)  # nobody decides
    assert ran == []
    assert result.output.startswith(
        "The call to send_refund was not run: its arguments do not fit the tool's schema."
    )
    assert 'amount_cents: "lots" is not of type "integer"' in result.output
    with hg.Gate(tmp_path) as gate:
        (ref,) = gate.handoffs("job-17")
        assert gate.standing("job-17", ref).state is hg.HandoffState.BLOCKED


async def test_a_timeout_denies_the_call_saying_so(tmp_path: Path) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    ran: list[dict[str, Any]] = []
    model = scripted(("call_a", '{"customer": "c1", "amount_cents": 5}'))
    capability = tool_approvals(tmp_path / "job-17", timeout=0.2)
    result = await refund_agent(model, ran, capabilities=[capability]).run("refund")
    assert ran == []
    assert result.output == "The call to send_refund was not run: no reviewer decided within 0.2 s."


async def test_under_a_policy_only_a_signed_approval_lets_the_call_run(tmp_path: Path) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    policy, key = approver_policy(tmp_path / "trust")
    run = tmp_path / "job-17"
    ran: list[dict[str, Any]] = []
    model = scripted(("call_a", '{"customer": "c1", "amount_cents": 5}'))
    unsigned = refund_agent(
        model, ran, capabilities=[tool_approvals(run, timeout=1, policy=policy)]
    )
    writer = asyncio.create_task(review(run, {"call_a": ("approve", None)}))  # no key: not counted
    denied = await unsigned.run("refund")
    await writer
    assert ran == []
    assert "no reviewer decided" in denied.output
    again = scripted(("call_b", '{"customer": "c1", "amount_cents": 5}'))
    signed = refund_agent(again, ran, capabilities=[tool_approvals(run, policy=policy)])
    reviewer = asyncio.create_task(
        review(run, {"call_b": ("approve", None)}, policy=policy, key=key)
    )
    await asyncio.wait_for(asyncio.gather(signed.run("refund"), reviewer), BOUND)
    assert ran == [{"customer": "c1", "amount_cents": 5}]


RESOLVE = """
import asyncio, json, sys
from pathlib import Path
from pydantic import TypeAdapter
from pydantic_ai.tools import DeferredToolRequests
from integrations.test_pydantic_ai_tools import refund_agent, scripted
from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

async def main():
    requests = TypeAdapter(DeferredToolRequests).validate_json(sys.argv[2])
    agent = refund_agent(scripted(), [])
    results = await resolve_tool_approvals(Path(sys.argv[1]), requests, agent=agent,
                                           timeout=float(sys.argv[3]), thread="conv-1",
                                           withdraw_on_timeout=False)
    print(json.dumps({k: type(v).__name__ for k, v in results.approvals.items()}))

asyncio.run(main())
"""


def resolve_elsewhere(run: Path, requests: DeferredToolRequests, timeout: float) -> dict[str, str]:
    """``resolve_tool_approvals`` in a second process: each call's answer, by call id."""
    from pydantic_ai.tools import DeferredToolRequests

    payload = TypeAdapter(DeferredToolRequests).dump_json(requests).decode()  # as stored
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE, str(run), payload, str(timeout)],
        capture_output=True,
        text=True,
        timeout=BOUND,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert done.returncode == 0, done.stderr
    answers: dict[str, str] = json.loads(done.stdout)
    return answers


async def test_out_of_band_a_second_process_finds_the_same_handoffs_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    from pydantic_ai.tools import DeferredToolRequests

    from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

    run = tmp_path / "job-17"
    ran: list[dict[str, Any]] = []
    model = scripted(
        ("call_a", '{"customer": "c1", "amount_cents": 5}'),
        ("call_b", '{"customer": "c2", "amount_cents": 6}'),
    )
    agent = refund_agent(model, ran, output_type=[str, DeferredToolRequests])
    first = await agent.run("refund both")
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    assert resolve_elsewhere(run, requests, 0.1) == {"call_a": "ToolDenied", "call_b": "ToolDenied"}
    before = calls_in(run)
    reviewer = asyncio.create_task(
        review(run, {"call_a": ("approve", None), "call_b": ("reject", "no")})
    )
    answers = await asyncio.to_thread(resolve_elsewhere, run, requests, BOUND)
    await reviewer
    assert answers == {"call_a": "ToolApproved", "call_b": "ToolDenied"}
    assert calls_in(run) == before  # the retry found the handoffs it had made
    again = await resolve_tool_approvals(run, requests, agent=agent, thread="conv-1")
    assert "delivered to an earlier run already" in str(
        getattr(again.approvals["call_a"], "message", "")
    )
    # The second process only printed its answers: recovering, this one asks for it again.
    results = await resolve_tool_approvals(
        run, requests, agent=agent, thread="conv-1", redeliver=True
    )
    resumed = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert ran == [{"customer": "c1", "amount_cents": 5}]
    assert "A reviewer rejected the call to send_refund. Reason: no" in resumed.output


def test_a_call_to_a_tool_the_agent_does_not_have_is_denied(tmp_path: Path) -> None:
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.tools import DeferredToolRequests

    from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

    requests = DeferredToolRequests(approvals=[ToolCallPart("wipe_disk", {}, tool_call_id="c9")])
    agent = refund_agent(scripted(), [])
    results = asyncio.run(
        resolve_tool_approvals(tmp_path / "job-17", requests, agent=agent, thread="conv-1")
    )
    denied = results.approvals["c9"]
    assert "the gate has no schema for it" in str(getattr(denied, "message", ""))
    assert not (tmp_path / "job-17").exists()


async def test_a_call_deferred_for_external_execution_is_left_to_the_caller(
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent, CallDeferred
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.tools import DeferredToolRequests

    from handoff_gate.integrations.pydantic_ai import tool_approvals

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("fetch_report", {}, tool_call_id="ext_1")])

    agent = Agent(
        FunctionModel(model),
        output_type=[str, DeferredToolRequests],
        capabilities=[tool_approvals(tmp_path / "job-17")],
    )

    @agent.tool_plain
    def fetch_report() -> str:
        raise CallDeferred

    result = await asyncio.wait_for(agent.run("fetch"), BOUND)
    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.calls] == ["ext_1"]
    assert not (tmp_path / "job-17").exists()  # nothing for a person to approve


def test_resolving_without_a_conversation_is_refused_before_anything_is_asked(
    tmp_path: Path,
) -> None:
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.tools import DeferredToolRequests

    from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

    requests = DeferredToolRequests(approvals=[ToolCallPart("send_refund", {}, tool_call_id="c")])
    agent = refund_agent(scripted(), [])
    with pytest.raises(ValueError, match="pass thread="):
        asyncio.run(resolve_tool_approvals(tmp_path / "job-17", requests, agent=agent))
    assert not (tmp_path / "job-17").exists()
