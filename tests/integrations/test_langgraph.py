"""The LangGraph gate node against the real library: StateGraph, InMemorySaver, interrupts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import list_handoffs
from handoff_gate.integrations.langgraph import gate_node, resume_after_decision
from handoff_gate.schemas import example_path

PLAN = json.loads(example_path("plan/v1").read_bytes())
REGISTRY = load_registry("")


class State(TypedDict, total=False):
    draft: dict[str, Any]
    approved: dict[str, Any] | None
    feedback: str | None
    gate_attempt: int
    writes: int


def _write(state: State) -> State:
    risks = ["stale export"] if state.get("feedback") else []
    return {"draft": {**PLAN, "risks": risks}, "writes": state.get("writes", 0) + 1}


def _graph(run: Path, saver: InMemorySaver) -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(State)
    builder.add_node("write", _write)
    gate = gate_node(run, phase="plan", schema_id="plan/v1", on_approve="done", on_reject="write")
    builder.add_node("gate", gate, destinations=("done", "write"))
    builder.add_node("done", lambda state: {})
    builder.add_edge(START, "write")
    builder.add_edge("write", "gate")
    builder.add_edge("done", END)
    return builder.compile(checkpointer=saver)


def _interrupt(state: dict[str, Any]) -> dict[str, Any]:
    (pending,) = state["__interrupt__"]
    value: dict[str, Any] = pending.value
    return value


def _ids(run: Path) -> list[str]:
    return [ref.id for ref in list_handoffs(run)]


async def test_submit_once_interrupt_resume_reject_then_approve(tmp_path: Path) -> None:
    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t1"}}
    first = _graph(tmp_path, saver).invoke({}, config)
    assert _interrupt(first)["handoff"] == "0001-plan"

    # A new graph object on the same checkpoint (as after a restart), resumed too early:
    # the node runs again, finds its handoff by key, and interrupts again.
    again = _graph(tmp_path, saver).invoke(Command(resume={"outcome": "approved"}), config)
    assert _interrupt(again)["handoff"] == "0001-plan"
    assert _ids(tmp_path) == ["0001-plan"]

    decide(tmp_path, "0001-plan", "reject", reason="name one risk", registry=REGISTRY)
    resume = await resume_after_decision(_interrupt(again))
    second = _graph(tmp_path, saver).invoke(resume, config)
    assert _interrupt(second)["handoff"] == "0002-plan"
    assert "name one risk" in second["feedback"]

    decide(tmp_path, "0002-plan", "approve", registry=REGISTRY)
    final = _graph(tmp_path, saver).invoke(await resume_after_decision(_interrupt(second)), config)
    assert "__interrupt__" not in final
    assert final["approved"]["risks"] == ["stale export"]
    assert final["feedback"] is None
    assert final["writes"] == 2
    assert _ids(tmp_path) == ["0001-plan", "0002-plan"]


def test_an_already_decided_handoff_passes_without_interrupting(tmp_path: Path) -> None:
    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t2"}}
    app = _graph(tmp_path, saver)
    app.invoke({}, config)
    decide(tmp_path, "0001-plan", "approve", registry=REGISTRY)
    # The resumed node runs again from its start: same key, no new handoff, no interrupt.
    final = app.invoke(Command(resume="decided"), config)
    assert final["approved"] == {**PLAN, "risks": []}
    assert _ids(tmp_path) == ["0001-plan"]


def test_threads_do_not_share_handoffs(tmp_path: Path) -> None:
    app = _graph(tmp_path, InMemorySaver())
    app.invoke({}, {"configurable": {"thread_id": "a"}})
    app.invoke({}, {"configurable": {"thread_id": "b"}})
    assert _ids(tmp_path) == ["0001-plan", "0002-plan"]
