"""The graphs the LangGraph gate-node tests drive, in a module of their own: their state
types must resolve at run time (``StateGraph`` reads their annotations, ``GateState``
among them), so this module imports LangGraph and the adapter when it is imported, and
the test modules import it only inside their tests, so that collecting them does not."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from handoff_gate.integrations.langgraph import GateState, gate_node
from handoff_gate.schemas import example_path

PLAN = json.loads(example_path("plan/v1").read_bytes())
Graph = CompiledStateGraph[Any, Any, Any, Any]


class State(TypedDict, total=False):
    topic: str
    draft: dict[str, Any]
    gate: GateState
    writes: int


def _write(state: State) -> State:
    risks = ["stale export"] if state.get("gate", {}).get("feedback") else []
    statement = state.get("topic") or PLAN["problem_statement"]
    draft = {**PLAN, "problem_statement": statement, "risks": risks}
    return {"draft": draft, "writes": state.get("writes", 0) + 1}


def plan_graph(run: Path, saver: InMemorySaver, **options: Any) -> Graph:
    builder = StateGraph(State)
    builder.add_node("write", _write)
    gate = gate_node(
        run, phase="plan", schema_id="plan/v1", on_approve="done", on_reject="write", **options
    )
    builder.add_node("gate", gate, destinations=("done", "write"))
    builder.add_node("done", lambda state: {})
    builder.add_edge(START, "write")
    builder.add_edge("write", "gate")
    builder.add_edge("done", END)
    return builder.compile(checkpointer=saver)


class Fan(TypedDict, total=False):
    results: Annotated[list[str], operator.add]


class Branch(TypedDict, total=False):
    shard: int
    draft: dict[str, Any]
    gate: GateState
    results: Annotated[list[str], operator.add]


def fan_out(run: Path, shards: int) -> Graph:
    """Each ``Send`` branch is a subgraph gating its own shard's plan."""
    branch = StateGraph(Branch)
    branch.add_node(
        "write", lambda s: {"draft": {**PLAN, "problem_statement": f"shard {s['shard']}"}}
    )
    gate = gate_node(run, phase="shard", schema_id="plan/v1", on_approve="keep", on_reject="keep")
    branch.add_node("gate", gate, destinations=("keep",))
    branch.add_node("keep", lambda s: {"results": [s["gate"]["approved"]["problem_statement"]]})
    branch.add_edge(START, "write")
    branch.add_edge("write", "gate")
    builder = StateGraph(Fan)
    builder.add_node("branch", branch.compile())
    builder.add_conditional_edges(
        START, lambda s: [Send("branch", {"shard": n}) for n in range(shards)], ["branch"]
    )
    builder.add_edge("branch", END)
    return builder.compile(checkpointer=InMemorySaver())


def two_gates(run: Path) -> Graph:
    class Two(TypedDict, total=False):
        draft: dict[str, Any]
        plan_gate: GateState
        review_gate: GateState

    builder = StateGraph(Two)
    for name, phase in (("plan_gate", "plan"), ("review_gate", "review")):
        gate = gate_node(
            run, phase=phase, schema_id="plan/v1", on_approve=END, on_reject=END, key=name
        )
        builder.add_node(name, gate, destinations=(END,))
        builder.add_edge(START, name)
    return builder.compile(checkpointer=InMemorySaver())
