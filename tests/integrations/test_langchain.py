"""LangChain's ``HumanInTheLoopMiddleware`` answered by the gate, against the real library
(``create_agent``, an ``InMemorySaver``) and langchain_core's ``GenericFakeChatModel``; a
person simulated by real ``decide`` calls.

LangChain, LangGraph and the adapter are imported inside the functions that use them:
every pytest process collects this module, and only the one that runs these tests should
pay for importing them (about 1.5 s of CPU)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import handoff_gate as hg
from integrations.tool_reviewer import BOUND, approver_policy, calls_in, review

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool


def refund_tool(ran: list[str]) -> BaseTool:
    from langchain_core.tools import tool

    @tool
    def send_refund(customer: str, amount_cents: int) -> str:
        """Refund a customer."""
        ran.append(f"{customer}:{amount_cents}")
        return f"refunded {customer} {amount_cents}"

    return send_refund


def refund_agent(mode: str, ran: list[str], *calls: tuple[str, dict[str, Any]]) -> Any:
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from integrations.langchain_fake import ToolCallingFake

    turn = AIMessage("", tool_calls=[{"name": "send_refund", "args": a, "id": c} for c, a in calls])
    model = ToolCallingFake(messages=iter([turn, AIMessage("done")]))
    middleware = HumanInTheLoopMiddleware(
        interrupt_on={"send_refund": True},
        interrupt_mode=mode,  # type: ignore[arg-type]
    )
    return create_agent(
        model, tools=[refund_tool(ran)], middleware=[middleware], checkpointer=InMemorySaver()
    )


def tool_replies(output: Any) -> dict[str, str]:
    """What the model was told for each call, by call id."""
    from langchain_core.messages import ToolMessage

    return {
        str(m.tool_call_id): str(m.content)
        for m in output.value["messages"]
        if isinstance(m, ToolMessage)
    }


CONFIG: Any = {"configurable": {"thread_id": "t1"}}
ASK: Any = {"messages": [{"role": "user", "content": "refund"}]}


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_an_approval_runs_the_validated_arguments_and_a_reject_reaches_the_model(
    tmp_path: Path, mode: str
) -> None:
    from handoff_gate.integrations.langchain import review_interrupts

    ran: list[str] = []
    agent = refund_agent(
        mode,
        ran,
        ("call_a", {"customer": "c1", "amount_cents": 500, "memo": "extra"}),
        ("call_b", {"customer": "c2", "amount_cents": 9000}),
    )
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )
    tools = [refund_tool(ran)]
    ids = {"batched": ("#1", "#2"), "per_call": ("call_a", "call_b")}[mode]
    plan = {ids[0]: ("approve", None), ids[1]: ("reject", "over the limit")}
    reviewer = asyncio.create_task(review(tmp_path / "job-17", plan))  # once both exist
    command = await review_interrupts(tmp_path / "job-17", first.interrupts, tools=tools)
    await reviewer
    done = agent.invoke(command, CONFIG, version="v2")
    assert ran == ["c1:500"]  # "memo" was not in the schema: the call ran as an edit
    replies = tool_replies(done)
    assert replies["call_b"] == (
        "User rejected the tool call for `send_refund` with reason: over the limit"
    )
    assert "refunded c1 500" in replies["call_a"]


async def test_an_approval_of_the_arguments_as_sent_is_a_plain_approve(tmp_path: Path) -> None:
    from handoff_gate.integrations.langchain import review_interrupts

    ran: list[str] = []
    agent = refund_agent("per_call", ran, ("call_a", {"customer": "c1", "amount_cents": 5}))
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )
    reviewer = asyncio.create_task(review(tmp_path / "job-17", {"call_a": ("approve", None)}))
    command = await review_interrupts(
        tmp_path / "job-17", first.interrupts, tools=[refund_tool(ran)]
    )
    await reviewer
    assert command.resume == {first.interrupts[0].id: {"type": "approve"}}
    agent.invoke(command, CONFIG, version="v2")
    assert ran == ["c1:5"]


async def test_a_reviewers_edit_in_the_gate_becomes_the_middlewares_edit(tmp_path: Path) -> None:
    """A person who fixes one argument (``decide … approve --edit``) has the tool run with
    the fixed arguments: the gate's edit is LangChain's ``edit`` decision."""
    from handoff_gate.integrations.langchain import review_interrupts

    ran: list[str] = []
    run = tmp_path / "job-17"
    agent = refund_agent("per_call", ran, ("call_a", {"customer": "c1", "amount_cents": 500}))
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )

    async def edit_amount() -> None:
        async with asyncio.timeout(BOUND):
            while "call_a" not in (found := calls_in(run)):
                await asyncio.sleep(0.02)
        with hg.Gate(tmp_path) as gate:
            fixed = {"customer": "c1", "amount_cents": 5}
            gate.decide(run.name, found["call_a"], "approve", edited_payload=fixed)

    reviewer = asyncio.create_task(edit_amount())
    command = await review_interrupts(
        run, first.interrupts, tools=[refund_tool(ran)], timeout=BOUND
    )
    await reviewer
    edited = {"name": "send_refund", "args": {"customer": "c1", "amount_cents": 5}}
    assert command.resume == {first.interrupts[0].id: {"type": "edit", "edited_action": edited}}
    agent.invoke(command, CONFIG, version="v2")
    assert ran == ["c1:5"]


async def test_invalid_arguments_are_rejected_before_anyone_is_asked(tmp_path: Path) -> None:
    from handoff_gate.integrations.langchain import review_interrupts

    ran: list[str] = []
    agent = refund_agent("batched", ran, ("call_a", {"customer": "c1", "amount_cents": "lots"}))
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )
    command = await asyncio.wait_for(
        review_interrupts(tmp_path / "job-17", first.interrupts, tools=[refund_tool(ran)]), BOUND
    )
    done = agent.invoke(command, CONFIG, version="v2")
    assert ran == []
    reply = tool_replies(done)["call_a"]
    assert "its arguments do not fit the tool's schema." in reply
    assert 'amount_cents: "lots" is not of type "integer"' in reply
    with hg.Gate(tmp_path) as gate:
        assert gate.standing("job-17", "0001-tool-call").state is hg.HandoffState.BLOCKED


async def test_under_a_policy_an_unsigned_approval_does_not_count(tmp_path: Path) -> None:
    from handoff_gate.integrations.langchain import review_interrupts

    policy, key = approver_policy(tmp_path / "trust")
    run = tmp_path / "job-17"
    ran: list[str] = []
    agent = refund_agent("per_call", ran, ("call_a", {"customer": "c1", "amount_cents": 5}))
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )
    tools = [refund_tool(ran)]
    writer = asyncio.create_task(review(run, {"call_a": ("approve", None)}))  # no key
    unsigned = await review_interrupts(
        run, first.interrupts, tools=tools, timeout=1, policy=policy, withdraw_on_timeout=False
    )
    await writer
    assert unsigned.resume == {
        first.interrupts[0].id: {"type": "reject", "message": "no reviewer decided within 1 s."}
    }
    reviewer = asyncio.create_task(
        review(run, {"call_a": ("approve", None)}, policy=policy, key=key)
    )
    signed = await review_interrupts(run, first.interrupts, tools=tools, policy=policy)
    await reviewer
    agent.invoke(signed, CONFIG, version="v2")
    assert ran == ["c1:5"]


REVIEW = """
import asyncio, json, sys
from pathlib import Path
from langgraph.types import Interrupt
from integrations.test_langchain import refund_tool
from handoff_gate.integrations.langchain import review_interrupts

async def main():
    kept = json.loads(Path(sys.argv[2]).read_text())
    interrupts = [Interrupt(value=i["value"], id=i["id"]) for i in kept]
    command = await review_interrupts(Path(sys.argv[1]), interrupts, tools=[refund_tool([])],
                                      timeout=float(sys.argv[3]), withdraw_on_timeout=False)
    print(json.dumps(command.resume))

asyncio.run(main())
"""


def review_elsewhere(run: Path, kept: Path, timeout: float) -> dict[str, Any]:
    """``review_interrupts`` in a second process, on interrupts a driver kept as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", REVIEW, str(run), str(kept), str(timeout)],
        capture_output=True,
        text=True,
        timeout=BOUND * 2,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert done.returncode == 0, done.stderr
    resume: dict[str, Any] = json.loads(done.stdout)
    return resume


async def test_the_same_interrupts_reviewed_in_another_process_find_the_same_handoffs(
    tmp_path: Path,
) -> None:
    from langgraph.types import Command

    run = tmp_path / "job-17"
    ran: list[str] = []
    agent = refund_agent(
        "batched",
        ran,
        ("call_a", {"customer": "c1", "amount_cents": 5}),
        ("call_b", {"customer": "c2", "amount_cents": 6}),
    )
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "refund"}]}, CONFIG, version="v2"
    )
    kept = tmp_path / "interrupts.json"
    kept.write_text(json.dumps([{"id": i.id, "value": i.value} for i in first.interrupts]))
    gave_up = await asyncio.to_thread(review_elsewhere, run, kept, 0.1)
    (only,) = first.interrupts
    assert [d["type"] for d in gave_up[only.id]["decisions"]] == ["reject", "reject"]
    before = calls_in(run)
    reviewer = asyncio.create_task(review(run, {"#1": ("approve", None), "#2": ("reject", "no")}))
    resume = await asyncio.to_thread(review_elsewhere, run, kept, BOUND)
    await reviewer
    assert calls_in(run) == before
    done = agent.invoke(Command(resume=resume), CONFIG, version="v2")
    assert ran == ["c1:5"]
    assert tool_replies(done)["call_b"].endswith("with reason: no")


def test_an_interrupt_that_is_not_the_middlewares_is_refused(tmp_path: Path) -> None:
    from langgraph.types import Interrupt

    from handoff_gate.integrations.langchain import review_interrupts

    odd = Interrupt(value="approve?", id="x1")
    with pytest.raises(ValueError, match="not a human-in-the-loop request"):
        asyncio.run(review_interrupts(tmp_path / "job-17", [odd], tools=[]))
    assert not (tmp_path / "job-17").exists()
