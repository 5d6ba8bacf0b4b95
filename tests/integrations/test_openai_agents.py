"""OpenAI Agents ``needs_approval`` tool calls through the gate, against the real SDK and
its own offline ``ScriptedModel``; a person simulated by real ``decide`` calls.

The SDK (and the adapter, which imports it) is imported inside the functions that use it:
every pytest process collects this module, and importing the SDK costs about 2.5 s of CPU,
which only the process that runs these tests should pay."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import handoff_gate as hg
from integrations.tool_reviewer import BOUND, approver_policy, calls_in, review

if TYPE_CHECKING:
    from agents import Agent, RunConfig, RunResult, RunState
    from agents.testing import ModelCall


def no_traces() -> RunConfig:
    """A run without a trace: its conversation is the one the caller names."""
    from agents import RunConfig

    return RunConfig(tracing_disabled=True)


async def reviewed(
    run: Path, result: RunResult | RunState[Any, Any], **options: Any
) -> RunState[Any, Any]:
    """``review_interruptions`` in the conversation a run without a trace is reviewed in."""
    from handoff_gate.integrations.openai_agents import review_interruptions

    return await review_interruptions(run, result, thread="conv-1", **options)


def said(call: ModelCall) -> list[Any]:
    """The model's last turn: what each tool returned, as one line per call."""
    from agents.testing import assistant_message

    outputs = [
        i for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    return [assistant_message("\n".join(f"{o['call_id']}: {o['output']}" for o in outputs))]


def support_agent(
    *calls: tuple[str, dict[str, Any]], ran: list[str] | None = None, resumed: bool = False
) -> Agent[Any]:
    """An agent whose model makes ``calls`` in one turn, then reports what came back
    (``resumed``: an agent for a state read back, whose model only reports)."""
    from agents import Agent, function_tool
    from agents.testing import ModelStep, ScriptedModel, function_call

    done = ran if ran is not None else []

    @function_tool(needs_approval=True)
    def send_refund(customer: str, amount_cents: int) -> str:
        """Refund a customer."""
        done.append(f"{customer}:{amount_cents}")
        return f"refunded {customer} {amount_cents}"

    asked = [function_call("send_refund", a, call_id=c) for c, a in calls]
    model = ScriptedModel(
        [ModelStep.respond(said)] if resumed else [asked, ModelStep.respond(said)]
    )
    return Agent(name="support", model=model, tools=[send_refund])


async def test_approved_calls_run_and_a_reject_gives_the_model_the_reason(tmp_path: Path) -> None:
    from agents import Runner

    ran: list[str] = []
    agent = support_agent(
        ("call_a", {"customer": "c1", "amount_cents": 500}),
        ("call_b", {"customer": "c2", "amount_cents": 9000}),
        ran=ran,
    )
    first = await Runner.run(agent, "refund both", run_config=no_traces())
    assert len(first.interruptions) == 2
    plan = {"call_a": ("approve", None), "call_b": ("reject", "over the limit")}
    reviewer = asyncio.create_task(review(tmp_path / "job-17", plan))  # decides once both exist
    state = await reviewed(tmp_path / "job-17", first)
    await reviewer
    final = await Runner.run(agent, state, run_config=no_traces())
    assert ran == ["c1:500"]
    assert final.final_output.splitlines() == [
        "call_a: refunded c1 500",
        "call_b: A reviewer rejected the call to send_refund. Reason: over the limit",
    ]
    with hg.Gate(tmp_path) as gate:
        envelope = gate.inspect("job-17", "0001-tool-call").envelope
    assert envelope is not None and envelope.tool is not None
    assert (envelope.tool.name, envelope.tool.agent) == ("send_refund", "support")


async def test_an_argument_the_schema_forbids_is_rejected_before_anyone_is_asked(
    tmp_path: Path,
) -> None:
    """The tool's schema closes its arguments: an extra one is not trimmed off and run,
    it blocks, and the model is told which."""
    from agents import Runner

    ran: list[str] = []
    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": 5, "memo": "x"}), ran=ran)
    first = await Runner.run(agent, "refund", run_config=no_traces())
    state = await asyncio.wait_for(reviewed(tmp_path / "job-17", first), BOUND)
    final = await Runner.run(agent, state, run_config=no_traces())
    assert ran == []
    assert "its arguments do not fit the tool's schema" in final.final_output
    assert "- memo: not allowed" in final.final_output


async def test_invalid_arguments_are_rejected_before_anyone_is_asked(tmp_path: Path) -> None:
    from agents import Runner

    ran: list[str] = []
    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": "lots"}), ran=ran)
    first = await Runner.run(agent, "refund", run_config=no_traces())
    state = await asyncio.wait_for(reviewed(tmp_path / "job-17", first), BOUND)
    final = await Runner.run(agent, state, run_config=no_traces())
    assert ran == []
    assert "its arguments do not fit the tool's schema" in final.final_output
    assert 'amount_cents: "lots" is not of type "integer"' in final.final_output
    with hg.Gate(tmp_path) as gate:
        assert gate.standing("job-17", "0001-tool-call").state is hg.HandoffState.BLOCKED


async def test_under_a_policy_an_unsigned_approval_does_not_count(tmp_path: Path) -> None:
    from agents import Runner, RunState

    policy, key = approver_policy(tmp_path / "trust")
    ran: list[str] = []
    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": 5}), ran=ran)
    first = await Runner.run(agent, "refund", run_config=no_traces())
    run = tmp_path / "job-17"
    saved = first.to_state().to_string()
    writer = asyncio.create_task(review(run, {"call_a": ("approve", None)}))
    unsigned = await reviewed(run, first, timeout=1, policy=policy, withdraw_on_timeout=False)
    await writer
    denied = await Runner.run(agent, unsigned, run_config=no_traces())
    assert ran == [] and "no reviewer decided within 1 s" in denied.final_output
    fresh = support_agent(ran=ran, resumed=True)
    again = await RunState.from_string(fresh, saved)  # the same call, asked again
    plan = {"call_a": ("approve", None)}
    reviewer = asyncio.create_task(review(run, plan, policy=policy, key=key))
    signed = await reviewed(run, again, timeout=BOUND, policy=policy)
    await reviewer
    await Runner.run(fresh, signed, run_config=no_traces())
    assert ran == ["c1:5"]


RESUME = """
import asyncio, sys
from pathlib import Path
from agents import RunConfig, RunState, Runner
from integrations.test_openai_agents import support_agent
from handoff_gate.integrations.openai_agents import review_interruptions

async def main():
    agent = support_agent(resumed=True)
    state = await RunState.from_string(agent, Path(sys.argv[2]).read_text())
    state = await review_interruptions(Path(sys.argv[1]), state, timeout=float(sys.argv[3]),
                                       thread="conv-1", withdraw_on_timeout=False)
    final = await Runner.run(agent, state, run_config=RunConfig(tracing_disabled=True))
    print(final.final_output)

asyncio.run(main())
"""


def resume_elsewhere(run: Path, saved: Path) -> str:
    """Read the state back in a second process, review it there, and resume it."""
    done = subprocess.run(
        [sys.executable, "-c", RESUME, str(run), str(saved), str(BOUND)],
        capture_output=True,
        text=True,
        timeout=BOUND * 2,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_state_kept_as_a_string_is_reviewed_in_another_process_on_the_same_handoffs(
    tmp_path: Path,
) -> None:
    from agents import Runner, RunState

    run = tmp_path / "job-17"
    agent = support_agent(
        ("call_a", {"customer": "c1", "amount_cents": 5}),
        ("call_b", {"customer": "c2", "amount_cents": 6}),
    )
    first = await Runner.run(agent, "refund both", run_config=no_traces())
    saved = tmp_path / "state.json"
    saved.write_text(first.to_state().to_string())
    # This process asks, gives up (its timeout), and exits; its state is never used again.
    await reviewed(
        run,
        await RunState.from_string(agent, saved.read_text()),
        timeout=0.1,
        withdraw_on_timeout=False,
    )
    before = calls_in(run)
    plan = {"call_a": ("approve", None), "call_b": ("reject", "wrong customer")}
    reviewer = asyncio.create_task(review(run, plan))
    output = await asyncio.to_thread(resume_elsewhere, run, saved)
    await reviewer
    assert calls_in(run) == before
    assert output.splitlines() == [
        "call_a: refunded c1 5",
        "call_b: A reviewer rejected the call to send_refund. Reason: wrong customer",
    ]


async def test_an_edit_runs_the_edited_arguments_and_the_model_is_told(tmp_path: Path) -> None:
    from agents import Runner

    ran: list[str] = []
    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": 9000}), ran=ran)
    first = await Runner.run(agent, "refund", run_config=no_traces())
    run = tmp_path / "job-17"
    state_task = asyncio.create_task(reviewed(run, first))
    while not (found := calls_in(run)):
        await asyncio.sleep(0.02)
    with hg.Gate(tmp_path) as gate:
        edit = {"customer": "c1", "amount_cents": 900}
        gate.decide("job-17", found["call_a"], "approve", reviewer="ops@host", edited_payload=edit)
    state = await asyncio.wait_for(state_task, BOUND)
    final = await Runner.run(agent, state, run_config=no_traces())
    assert ran == ["c1:900"]
    assert final.final_output == (
        "call_a: A reviewer edited the arguments of this call to send_refund before it ran; "
        'it ran with {"customer":"c1","amount_cents":900} instead of the arguments you '
        "sent, and returned: refunded c1 900"
    )


async def test_a_new_conversation_reusing_call_ids_finds_no_approval(tmp_path: Path) -> None:
    """Traced runs (the SDK's default): each conversation is its trace, so the second
    one's ``call_a`` is a new handoff no one approved, and nothing runs on the first's."""
    from agents import Runner

    from handoff_gate.integrations.openai_agents import review_interruptions

    ran: list[str] = []
    run = tmp_path / "job-17"
    call = ("call_a", {"customer": "c-1", "amount_cents": 1500})
    first = await Runner.run(support_agent(call, ran=ran), "refund c-1")
    reviewer = asyncio.create_task(review(run, {"call_a": ("approve", None)}))
    state = await review_interruptions(run, first)
    await reviewer
    await Runner.run(support_agent(ran=ran, resumed=True), state)
    assert ran == ["c-1:1500"]
    other = support_agent(call, ran=ran)
    second = await Runner.run(other, "refund c-1")
    denied = await review_interruptions(run, second, timeout=0.2)
    final = await Runner.run(other, denied)
    assert ran == ["c-1:1500"]
    assert (
        final.final_output
        == "call_a: The call to send_refund was not run: no reviewer decided within 0.2 s."
    )
    with hg.Gate(tmp_path) as gate:
        assert len(gate.handoffs("job-17")) == 2


async def test_a_run_that_names_no_conversation_is_refused(tmp_path: Path) -> None:
    from agents import Runner

    from handoff_gate.integrations.openai_agents import review_interruptions

    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": 5}))
    first = await Runner.run(agent, "refund", run_config=no_traces())
    with pytest.raises(ValueError, match="names no conversation"):
        await review_interruptions(tmp_path / "job-17", first)
    assert not (tmp_path / "job-17").exists()


async def test_the_same_state_reviewed_twice_runs_the_call_once(tmp_path: Path) -> None:
    from agents import Runner, RunState

    ran: list[str] = []
    agent = support_agent(("call_a", {"customer": "c1", "amount_cents": 5}), ran=ran)
    first = await Runner.run(agent, "refund", run_config=no_traces())
    saved = first.to_state().to_string()
    run = tmp_path / "job-17"
    reviewer = asyncio.create_task(review(run, {"call_a": ("approve", None)}))
    state = await reviewed(run, first)
    await reviewer
    await Runner.run(agent, state, run_config=no_traces())
    fresh = support_agent(ran=ran, resumed=True)
    replayed = await reviewed(run, await RunState.from_string(fresh, saved), timeout=BOUND)
    final = await Runner.run(fresh, replayed, run_config=no_traces())
    assert ran == ["c1:5"]
    assert "delivered to an earlier run already" in final.final_output
