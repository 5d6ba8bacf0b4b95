"""Issue 21: an adapter whose wait times out or is cancelled withdraws its own handoff.

Against the real libraries and their offline models, for every adapter that submits and
then waits: after a timeout (or a cancel) a reviewer can no longer approve what the
pipeline will not consume; ``withdraw_on_timeout=False`` leaves it pending for a later
resolve; a decision made in time stands; ``expires_in`` gives each handoff a deadline.
LangGraph's gate node pauses (``interrupt``) rather than giving up, so it never withdraws.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import handoff_gate as hg
from handoff_gate.gates.vocab.deadline import parse_at
from handoff_gate.integrations.feedback import HandoffNotApproved
from handoff_gate.integrations.giving_up import CANCELLED, TIMED_OUT, withdraw_undecided
from handoff_gate.schemas import example_path
from integrations.test_langchain import ASK, CONFIG, refund_agent, refund_tool
from integrations.test_openai_agents import no_traces, support_agent
from integrations.test_pydantic_ai_tools import refund_agent as tools_agent
from integrations.test_pydantic_ai_tools import scripted
from integrations.tool_reviewer import BOUND

#: One adapter run on ``run`` with the given keywords (``timeout``, ``withdraw_on_timeout``,
#: ``expires_in``); it returns once the adapter has answered however it answers a timeout.
Adapter = Callable[..., Awaitable[None]]
CALL = ("call_a", {"customer": "c1", "amount_cents": 5})


async def _approval_gate(run: Path, **options: Any) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_gate.integrations.pydantic_ai import approval_gate

    plan = example_path("plan/v1").read_text()
    agent = Agent(TestModel(custom_output_text=plan), output_type=str)
    agent.output_validator(approval_gate(run, phase="plan", schema_id="plan/v1", **options))
    with contextlib.suppress(HandoffNotApproved):
        await agent.run("plan")


async def _tool_approvals(run: Path, **options: Any) -> None:
    from handoff_gate.integrations.pydantic_ai import tool_approvals

    model = scripted(("call_a", '{"customer": "c1", "amount_cents": 5}'))
    await tools_agent(model, [], capabilities=[tool_approvals(run, **options)]).run("refund")


async def _resolve_tool_approvals(run: Path, **options: Any) -> None:
    from pydantic_ai.tools import DeferredToolRequests

    from handoff_gate.integrations.pydantic_ai import resolve_tool_approvals

    model = scripted(("call_a", '{"customer": "c1", "amount_cents": 5}'))
    agent = tools_agent(model, [], output_type=[str, DeferredToolRequests])
    first = await agent.run("refund")
    assert isinstance(first.output, DeferredToolRequests)
    await resolve_tool_approvals(run, first.output, agent=agent, thread="conv-1", **options)


async def _review_interruptions(run: Path, **options: Any) -> None:
    from agents import Runner

    from handoff_gate.integrations.openai_agents import review_interruptions

    first = await Runner.run(support_agent(CALL), "refund", run_config=no_traces())
    await review_interruptions(run, first, thread="conv-1", **options)


async def _review_interrupts(run: Path, **options: Any) -> None:
    from handoff_gate.integrations.langchain import review_interrupts

    first = refund_agent("per_call", [], CALL).invoke(ASK, CONFIG, version="v2")
    await review_interrupts(run, first.interrupts, tools=[refund_tool([])], **options)


ADAPTERS: dict[str, Adapter] = {
    "approval_gate": _approval_gate,
    "tool_approvals": _tool_approvals,
    "resolve_tool_approvals": _resolve_tool_approvals,
    "review_interruptions": _review_interruptions,
    "review_interrupts": _review_interrupts,
}


def _only(run: Path) -> hg.Standing:
    with hg.Gate(run.parent) as gate:
        (ref,) = gate.handoffs(run.name)
        return gate.standing(run.name, ref)


def _withdrawn_events(run: Path) -> list[dict[str, Any]]:
    with hg.Gate(run.parent) as gate:
        return [e for e in gate.audit_events(run.name) if e["event"] == "handoff_withdrawn"]


@pytest.mark.parametrize("name", sorted(ADAPTERS))
async def test_a_timeout_withdraws_and_a_later_decide_is_refused(tmp_path: Path, name: str) -> None:
    run = tmp_path / "job-17"
    await ADAPTERS[name](run, timeout=0.1)
    stood = _only(run)
    assert stood.state is hg.HandoffState.WITHDRAWN
    assert TIMED_OUT in stood.problem
    with hg.Gate(tmp_path) as gate, pytest.raises(hg.DecisionRefused, match="withdrawn"):
        gate.decide(run.name, stood.ref, "approve", reviewer="ana")
    assert [e["reason"] for e in _withdrawn_events(run)] == [TIMED_OUT]


@pytest.mark.parametrize("name", sorted(ADAPTERS))
async def test_withdraw_on_timeout_false_leaves_it_pending(tmp_path: Path, name: str) -> None:
    run = tmp_path / "job-17"
    await ADAPTERS[name](run, timeout=0.1, withdraw_on_timeout=False)
    assert _only(run).state is hg.HandoffState.PENDING
    assert _withdrawn_events(run) == []


async def _blocked_wait(run: Path) -> None:
    """Until the adapter's wait is blocked: its waiter record is in the run."""
    async with asyncio.timeout(BOUND):
        while not (run / "waiters").is_dir() or not any((run / "waiters").iterdir()):
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
async def test_a_cancelled_wait_withdraws_and_still_cancels(tmp_path: Path, name: str) -> None:
    run = tmp_path / "job-17"
    task = asyncio.ensure_future(ADAPTERS[name](run, timeout=None))
    await _blocked_wait(run)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stood = _only(run)
    assert stood.state is hg.HandoffState.WITHDRAWN and CANCELLED in stood.problem
    assert len(_withdrawn_events(run)) == 1


@pytest.mark.parametrize("name", sorted(ADAPTERS))
async def test_a_decision_in_time_is_never_withdrawn(tmp_path: Path, name: str) -> None:
    run = tmp_path / "job-17"
    task = asyncio.ensure_future(ADAPTERS[name](run, timeout=BOUND))
    await _blocked_wait(run)
    with hg.Gate(tmp_path) as gate:
        (ref,) = gate.handoffs(run.name)
        gate.decide(run.name, ref, "approve", reviewer="ana")
    await task
    assert _only(run).state is hg.HandoffState.APPROVED
    assert _withdrawn_events(run) == []


def test_a_decided_handoff_refuses_the_withdrawal_and_its_decision_stands(tmp_path: Path) -> None:
    with hg.Gate(tmp_path) as gate:
        ref = gate.submit("job", example_path("plan/v1").read_bytes(), phase="plan",
                          schema_id="plan/v1")  # fmt: skip
        gate.decide("job", ref, "reject", reason="no", reviewer="ana")
        assert not withdraw_undecided(gate, "job", ref, TIMED_OUT)
        assert gate.standing("job", ref).state is hg.HandoffState.REJECTED


def _deadline(stood: hg.Standing) -> datetime:
    envelope = stood.report.envelope
    assert envelope is not None and envelope.expires_at is not None
    return parse_at(envelope.expires_at)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
async def test_expires_in_is_the_submitted_handoffs_deadline(tmp_path: Path, name: str) -> None:
    run = tmp_path / "job-17"
    before = datetime.now(UTC)
    await ADAPTERS[name](run, timeout=0, withdraw_on_timeout=False, expires_in="2h")
    left = _deadline(_only(run)) - before
    assert timedelta(hours=2) - timedelta(minutes=1) < left <= timedelta(hours=2, minutes=1)


def test_the_langgraph_node_pauses_without_withdrawing_and_carries_a_deadline(
    tmp_path: Path,
) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from integrations.langgraph_graphs import PLAN, plan_graph

    run = tmp_path / "job-17"
    app = plan_graph(run, InMemorySaver(), timeout=0.1, expires_in=timedelta(days=7))
    state = app.invoke({"topic": PLAN["problem_statement"]}, {"configurable": {"thread_id": "t"}})
    assert "__interrupt__" in state
    stood = _only(run)
    assert stood.state is hg.HandoffState.PENDING
    assert _deadline(stood) - datetime.now(UTC) > timedelta(days=6)
    assert _withdrawn_events(run) == []
