"""An approval covers one call of one tool in one conversation, delivered once: against
the real pydantic-ai (its offline ``FunctionModel``), the OpenAI Agents SDK (its
``ScriptedModel``) and LangChain on LangGraph (a fake chat model, an ``InMemorySaver``),
on a folder of runs and on PostgreSQL, a reviewer simulated by real ``decide`` calls."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import psycopg
import pytest

import handoff_gate as hg
from handoff_gate.gates.store.postgres_schema import init_schema
from integrations.test_langchain import ASK, CONFIG, refund_tool, tool_replies
from integrations.test_openai_agents import support_agent

if TYPE_CHECKING:
    from langgraph.checkpoint.memory import InMemorySaver
    from pydantic_ai import Agent, RunContext, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
    )
    from pydantic_ai.models.function import AgentInfo
    from pydantic_ai.tools import DeferredToolRequests


PATH_ONLY = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
    "additionalProperties": False,
}
RUN = "job-17"


class Where(NamedTuple):
    """A store (a folder of runs, or a database URL) the adapter and reviewer share."""

    store: str


@pytest.fixture(params=["folder", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Where]:
    if request.param == "folder":
        yield Where(str(tmp_path / "runs"))
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    yield Where(url)


def files_agent(turns: list[tuple[str, str]], ran: list[str]) -> Agent[None, Any]:
    """An agent with two tools of one schema; its model makes the call ``turns[n]``
    (tool, call id) on its n-th turn of tool calls, and reports what came back."""
    from pydantic_ai import Agent, ApprovalRequired, Tool
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.tools import DeferredToolRequests

    asked = iter(turns)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            return ModelResponse(parts=[TextPart("\n".join(str(r.content) for r in returns))])
        tool, call_id = next(asked)
        return ModelResponse(parts=[ToolCallPart(tool, '{"path": "/srv"}', tool_call_id=call_id)])

    def gated(name: str) -> Tool[None]:
        def run(ctx: RunContext[None], **args: Any) -> str:
            if not ctx.tool_call_approved:
                raise ApprovalRequired
            ran.append(f"{name} {args['path']}")
            return f"{name} done"

        return Tool.from_schema(run, name, f"{name} a path.", PATH_ONLY, takes_ctx=True)

    return Agent(
        FunctionModel(model),
        tools=[gated("read_file"), gated("delete_tree")],
        name="files",
        output_type=[str, DeferredToolRequests],
    )


async def resolve(
    where: Where, agent: Agent[None, Any], requests: DeferredToolRequests, **kwargs: Any
) -> dict[str, Any]:
    from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

    results = await resolve_tool_approvals(
        RUN, requests, agent=agent, thread="conv-1", store=where.store, **kwargs
    )
    return results.approvals


def approve_all(where: Where) -> None:
    with hg.Gate(where.store) as gate:
        for ref in gate.handoffs(RUN):
            if gate.standing(RUN, ref).state is hg.HandoffState.PENDING:
                gate.decide(RUN, ref, "approve", reviewer="ops@host")


async def test_the_same_resume_run_twice_runs_the_tool_once(where: Where) -> None:
    from pydantic_ai.tools import DeferredToolRequests, ToolDenied

    ran: list[str] = []
    agent = files_agent([("read_file", "call_a")], ran)
    first = await agent.run("read /srv")
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    await resolve(where, agent, requests, timeout=0, withdraw_on_timeout=False)
    approve_all(where)
    for _ in range(2):  # the pipeline resumed, then resumed again (a retry, a replay)
        answers = await resolve(where, agent, requests, timeout=0)
        results = requests.build_results(approvals=answers)
        await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert ran == ["read_file /srv"]
    assert isinstance(answers["call_a"], ToolDenied)
    assert "delivered to an earlier run already" in answers["call_a"].message


async def test_a_call_id_reused_for_another_tool_runs_nothing_without_a_decision(
    where: Where,
) -> None:
    from pydantic_ai.tools import DeferredToolRequests

    ran: list[str] = []
    agent = files_agent([("read_file", "call_a"), ("delete_tree", "call_a")], ran)
    first = await agent.run("read /srv")
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    await resolve(where, agent, requests, timeout=0, withdraw_on_timeout=False)
    approve_all(where)
    results = requests.build_results(approvals=await resolve(where, agent, requests, timeout=0))
    await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    second = await agent.run("now clean up")  # the model reuses call_a for delete_tree
    reused = second.output
    assert isinstance(reused, DeferredToolRequests)
    assert [(c.tool_name, c.tool_call_id) for c in reused.approvals] == [("delete_tree", "call_a")]
    answers = await asyncio.wait_for(resolve(where, agent, reused, timeout=0.2), 30)
    results = reused.build_results(approvals=answers)
    await agent.run(message_history=second.all_messages(), deferred_tool_results=results)
    assert ran == ["read_file /srv"]
    assert "no reviewer decided within 0.2 s" in answers["call_a"].message
    with hg.Gate(where.store) as gate:
        assert len(gate.handoffs(RUN)) == 2  # a new handoff, for a person to decide


async def test_a_replayed_langgraph_resume_runs_the_tool_once(where: Where) -> None:
    """LangChain's middleware on a LangGraph checkpointer: a worker restored from the
    checkpoint taken at the interrupt (the first one resumed, ran the tool and died
    before its own checkpoint was kept) asks about the same interrupts again, and is
    told the approval was delivered already."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from handoff_gate.integrations.langchain import review_interrupts
    from integrations.langchain_fake import ToolCallingFake

    ran: list[str] = []
    tools = [refund_tool(ran)]
    call = {"name": "send_refund", "args": {"customer": "c1", "amount_cents": 5}, "id": "call_a"}

    def worker(saver: InMemorySaver) -> Any:
        replies = [AIMessage("", tool_calls=[call]), AIMessage("done")]
        return create_agent(
            ToolCallingFake(messages=iter(replies)),
            tools=tools,
            middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_refund": True})],
            checkpointer=saver,
        )

    saver = InMemorySaver()
    first = worker(saver).invoke(ASK, CONFIG, version="v2")
    kept = copy.deepcopy(saver)  # the checkpoint as it was at the interrupt
    kwargs: Any = {"tools": tools, "store": where.store}
    await review_interrupts(RUN, first.interrupts, timeout=0, withdraw_on_timeout=False, **kwargs)
    approve_all(where)
    resume = await review_interrupts(RUN, first.interrupts, **kwargs)
    worker(saver).invoke(resume, CONFIG, version="v2")
    assert ran == ["c1:5"]
    restored = worker(kept)
    paused = restored.get_state(CONFIG)
    assert [i.id for i in paused.interrupts] == [i.id for i in first.interrupts]
    replay = await review_interrupts(RUN, paused.interrupts, **kwargs)
    done = restored.invoke(replay, CONFIG, version="v2")
    assert ran == ["c1:5"]
    assert "delivered to an earlier run already" in tool_replies(done)["call_a"]


async def test_a_new_openai_agents_conversation_reusing_call_ids_runs_nothing(
    where: Where,
) -> None:
    """Traced runs: the first conversation's approved ``call_a`` ran; another one whose
    model sends the same call, with no reviewer, runs nothing."""
    from agents import Runner

    from handoff_gate.integrations.openai_agents import review_interruptions

    ran: list[str] = []
    call = ("call_a", {"customer": "c-1", "amount_cents": 1500})
    kwargs: Any = {"store": where.store}
    agent = support_agent(call, ran=ran)
    first = await Runner.run(agent, "refund c-1")
    await review_interruptions(RUN, first, timeout=0, withdraw_on_timeout=False, **kwargs)
    approve_all(where)
    await Runner.run(agent, await review_interruptions(RUN, first, **kwargs))
    assert ran == ["c-1:1500"]
    other = support_agent(call, ran=ran)
    second = await Runner.run(other, "refund c-1")
    final = await Runner.run(other, await review_interruptions(RUN, second, timeout=0.2, **kwargs))
    assert ran == ["c-1:1500"]
    assert "no reviewer decided within 0.2 s" in final.final_output
