"""A LangGraph graph with a human gate between writing a plan and acting on it (offline).

    .venv/bin/python examples/langgraph_graph.py /tmp/graph-run

The ``gate`` node submits the draft once per thread and interrupts; this driver then
waits for the decision (``handoff-gate watch /tmp/graph-run``) and resumes the graph
with it. A reject sends the graph back to ``write`` with the reason; the approved plan
is printed as JSON. With a persistent checkpointer (``SqliteSaver``, ``PostgresSaver``)
the driver may exit at the interrupt and another process resume the same thread later.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from handoff_gate.integrations.langgraph import GateState, gate_node, resume_all
from handoff_gate.schemas import example_path

PLAN = json.loads(example_path("plan/v1").read_bytes())


class State(TypedDict, total=False):
    draft: dict[str, Any]
    gate: GateState  # the gate node's one key: its count, outcome, payload or feedback


def write(state: State) -> State:
    """A stand-in writer: names a risk once a reviewer's reason asks for one."""
    risks = ["the export may miss manual retries"] if state.get("gate", {}).get("feedback") else []
    return {"draft": {**PLAN, "risks": risks}}


def build(run_dir: Path) -> Any:
    builder = StateGraph(State)
    builder.add_node("write", write)
    builder.add_node(
        "gate",
        gate_node(run_dir, phase="plan", schema_id="plan/v1", on_approve="act", on_reject="write"),
        destinations=("act", "write"),
    )
    builder.add_node("act", lambda state: {})
    builder.add_edge(START, "write")
    builder.add_edge("write", "gate")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=InMemorySaver())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--thread", default="example")
    args = parser.parse_args()
    app = build(args.run_dir)
    config = {"configurable": {"thread_id": args.thread}}
    state = await app.ainvoke({}, config)
    while "__interrupt__" in state:  # one gate or several: resume every decided one
        state = await app.ainvoke(await resume_all(state["__interrupt__"]), config)
    print(json.dumps(state["gate"]["approved"]))


if __name__ == "__main__":
    asyncio.run(main())
