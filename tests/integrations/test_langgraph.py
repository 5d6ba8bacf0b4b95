"""The LangGraph gate node against the real library: StateGraph, InMemorySaver,
interrupts, ``Send`` fan-out, reused threads, several pending gates, a policy.

LangGraph, the adapter and the graphs (``integrations.langgraph_graphs``) are imported
inside the tests: every pytest process collects this module, and only the one that runs
these tests should pay for importing LangGraph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from signed_policy import signed_policy

from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.filesystem import list_handoffs

REGISTRY = load_registry("")


def _interrupt(state: dict[str, Any]) -> dict[str, Any]:
    (pending,) = state["__interrupt__"]
    value: dict[str, Any] = pending.value
    return value


def _ids(run: Path) -> list[str]:
    return [ref.id for ref in list_handoffs(run)]


async def test_submit_once_interrupt_resume_reject_then_approve(tmp_path: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from handoff_gate.integrations.langgraph import resume_after_decision, resume_all
    from integrations.langgraph_graphs import plan_graph

    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t1"}}
    first = plan_graph(tmp_path, saver).invoke({}, config)
    value = _interrupt(first)
    assert value["type"] == "handoff_gate"
    assert value["handoff"] == "0001-plan"
    assert len(value["sha256"]) == 64

    # A new graph object on the same checkpoint (as after a restart), resumed too early:
    # the node runs again, finds its handoff by key, and interrupts again.
    again = plan_graph(tmp_path, saver).invoke(Command(resume={"outcome": "approved"}), config)
    assert _interrupt(again)["handoff"] == "0001-plan"
    assert _ids(tmp_path) == ["0001-plan"]

    decide(tmp_path, "0001-plan", "reject", reason="name one risk", registry=REGISTRY)
    resume = await resume_after_decision(_interrupt(again))
    second = plan_graph(tmp_path, saver).invoke(resume, config)
    assert _interrupt(second)["handoff"] == "0002-plan"
    assert "name one risk" in second["gate"]["feedback"]
    assert second["gate"]["outcome"] == "rejected"

    decide(tmp_path, "0002-plan", "approve", registry=REGISTRY)
    final = plan_graph(tmp_path, saver).invoke(await resume_all(second["__interrupt__"]), config)
    assert "__interrupt__" not in final
    assert final["gate"]["approved"]["risks"] == ["stale export"]
    assert final["gate"]["feedback"] is None
    assert final["gate"]["count"] == 2
    assert final["writes"] == 2
    assert _ids(tmp_path) == ["0001-plan", "0002-plan"]


def test_an_already_decided_handoff_passes_without_interrupting(tmp_path: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from integrations.langgraph_graphs import PLAN, plan_graph

    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t2"}}
    app = plan_graph(tmp_path, saver)
    app.invoke({}, config)
    decide(tmp_path, "0001-plan", "approve", registry=REGISTRY)
    # The resumed node runs again from its start: same key, no new handoff, no interrupt.
    final = app.invoke(Command(resume="decided"), config)
    assert final["gate"]["approved"] == {**PLAN, "risks": []}
    assert _ids(tmp_path) == ["0001-plan"]


def test_threads_do_not_share_handoffs(tmp_path: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from integrations.langgraph_graphs import plan_graph

    app = plan_graph(tmp_path, InMemorySaver())
    app.invoke({}, {"configurable": {"thread_id": "a"}})
    app.invoke({}, {"configurable": {"thread_id": "b"}})
    assert _ids(tmp_path) == ["0001-plan", "0002-plan"]


async def test_a_thread_reused_for_a_second_task_gets_a_new_handoff(tmp_path: Path) -> None:
    """B2: the key counted attempts only on reject, so the second task's draft hit the
    first one's key: "idempotency key ... was used ... with other bytes"."""
    from langgraph.checkpoint.memory import InMemorySaver

    from handoff_gate.integrations.langgraph import resume_all
    from integrations.langgraph_graphs import plan_graph

    app = plan_graph(tmp_path, InMemorySaver())
    config: Any = {"configurable": {"thread_id": "reused"}}
    first = app.invoke({"topic": "Churn after a failed first payment."}, config)
    decide(tmp_path, "0001-plan", "approve", registry=REGISTRY)
    done = app.invoke(await resume_all(first["__interrupt__"]), config)
    assert done["gate"]["count"] == 1
    second = app.invoke({"topic": "Churn after a price change."}, config)
    assert _interrupt(second)["handoff"] == "0002-plan"
    decide(tmp_path, "0002-plan", "approve", registry=REGISTRY)
    final = app.invoke(await resume_all(second["__interrupt__"]), config)
    assert final["gate"]["approved"]["problem_statement"] == "Churn after a price change."
    assert final["gate"]["count"] == 2
    assert _ids(tmp_path) == ["0001-plan", "0002-plan"]


async def test_send_fan_out_of_twenty_gated_branches(tmp_path: Path) -> None:
    """B3: every parallel instance got the same key, so all but one failed and a handoff
    was left pending with no waiter. Each branch now has its own, stable over resumes."""
    from handoff_gate.integrations.langgraph import resume_all
    from integrations.langgraph_graphs import fan_out

    app = fan_out(tmp_path, 20)
    config: Any = {"configurable": {"thread_id": "fan"}}
    state = app.invoke({}, config)
    assert len(state["__interrupt__"]) == 20
    ids = _ids(tmp_path)
    assert len(ids) == 20
    for start in range(0, 20, 5):  # four rounds of five decisions, a resume after each
        for handoff in ids[start : start + 5]:
            decide(tmp_path, handoff, "approve", registry=REGISTRY)
        state = app.invoke(await resume_all(state["__interrupt__"]), config)
        assert len(state.get("__interrupt__", ())) == 15 - start
        assert _ids(tmp_path) == ids  # no branch submitted twice
    assert sorted(state["results"]) == sorted(f"shard {n}" for n in range(20))


async def test_two_pending_gates_are_resumed_with_resume_all(tmp_path: Path) -> None:
    """B4: resuming with the first interrupt's value failed with two pending ("you must
    specify the interrupt id"). ``resume_all`` resumes each decided one by its id."""
    from handoff_gate.integrations.langgraph import resume_all
    from integrations.langgraph_graphs import PLAN, two_gates

    app = two_gates(tmp_path)
    config: Any = {"configurable": {"thread_id": "two"}}
    state = app.invoke({"draft": PLAN}, config)
    assert len(state["__interrupt__"]) == 2
    # The two gates run in parallel: which one submitted first is not fixed.
    by_phase = {ref.phase: ref.id for ref in list_handoffs(tmp_path)}
    decide(tmp_path, by_phase["review"], "approve", registry=REGISTRY)
    command = await resume_all(state["__interrupt__"])
    resumed = command.resume.values()  # type: ignore[union-attr]
    assert [v["handoff"] for v in resumed] == [by_phase["review"]]
    state = app.invoke(command, config)
    assert state["review_gate"]["outcome"] == "approved"
    assert _interrupt(state)["handoff"] == by_phase["plan"]
    decide(tmp_path, by_phase["plan"], "reject", reason="no", registry=REGISTRY)
    state = app.invoke(await resume_all(state["__interrupt__"]), config)
    assert "__interrupt__" not in state
    assert state["plan_gate"]["outcome"] == "rejected"
    assert sorted(_ids(tmp_path)) == sorted(by_phase.values())


async def test_resume_all_times_out_when_nothing_is_decided(tmp_path: Path) -> None:
    from handoff_gate.integrations.langgraph import resume_all
    from integrations.langgraph_graphs import PLAN, two_gates

    app = two_gates(tmp_path)
    state = app.invoke({"draft": PLAN}, {"configurable": {"thread_id": "idle"}})
    with pytest.raises(TimeoutError):
        await resume_all(state["__interrupt__"], timeout=0.1)
    with pytest.raises(ValueError, match="no pending handoff_gate"):
        await resume_all([])


async def test_under_a_policy_only_a_signed_approval_lets_the_graph_go_on(
    tmp_path: Path,
) -> None:
    """B6: the node took no policy, so anyone who could write the run approved."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from handoff_gate.integrations.langgraph import resume_all
    from integrations.langgraph_graphs import plan_graph

    trust = signed_policy(tmp_path / "trust")
    run = tmp_path / "run"
    app = plan_graph(run, InMemorySaver(), policy=trust.policy)
    config: Any = {"configurable": {"thread_id": "signed"}}
    state = app.invoke({}, config)
    decide(run, "0001-plan", "approve", registry=REGISTRY)  # unsigned: ignored
    state = app.invoke(Command(resume="forged"), config)
    assert _interrupt(state)["handoff"] == "0001-plan"
    with pytest.raises(TimeoutError):
        await resume_all(state["__interrupt__"], timeout=0.2, policy=trust.policy)
    with Gate(policy=trust.policy, key=trust.alice) as alice:
        alice.decide(run, "0001-plan", "approve")
    command = await resume_all(state["__interrupt__"], policy=trust.policy)
    final = app.invoke(command, config)
    assert final["gate"]["outcome"] == "approved"
