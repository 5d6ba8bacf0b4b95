"""LangGraph: a gate node that holds a graph thread until a person decides.

::

    from handoff_gate.integrations.langgraph import gate_node, resume_after_decision

    builder.add_node("gate", gate_node(run, phase="plan", schema_id="plan/v1",
                                       on_approve="execute", on_reject="write"),
                     destinations=("execute", "write"))
    app = builder.compile(checkpointer=saver)
    state = app.invoke(inputs, config)            # stops at the gate: state["__interrupt__"]
    ...                                           # the process may exit here
    value = state["__interrupt__"][0].value
    app.invoke(await resume_after_decision(value), config)

The node submits ``state[payload_key]`` once per graph thread and attempt: its
idempotency key is ``thread id : node name : attempt``, so a node re-run after a crash,
a replay or a resume finds the handoff it already submitted instead of orphaning it.
While the handoff is undecided it calls ``interrupt()`` with ``{"run", "handoff",
"phase", "schema"}``, so the graph's checkpoint holds the wait and no process has to.

The resume value is only a hint: on every run the node reads the decision from the run
itself, so a forged or stale ``Command(resume=...)`` cannot approve anything. Approved:
``state[approved_key]`` gets the delivered payload and the graph goes to ``on_approve``.
Rejected: ``state[feedback_key]`` gets the reason and findings, the attempt counter
goes up (the next submit is a new handoff) and the graph goes to ``on_reject``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, interrupt

from handoff_gate.gates.api import submit, wait, wait_async
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.run.pickup import WaitOutcome, WaitResult
from handoff_gate.integrations.feedback import rejection_text, settled


class GateNode(Protocol):
    """A node taking the graph's state (whatever mapping it declares) and its config.

    A protocol rather than a ``Callable`` alias: LangGraph's ``add_node`` infers the
    node's input type from it, and ``Callable[[Any, ...]]`` made mypy infer ``Never``.
    """

    def __call__(self, state: Any, config: RunnableConfig) -> Command[str]: ...


def _key(config: RunnableConfig, attempt: int) -> str:
    thread = (config.get("configurable") or {}).get("thread_id")
    node = (config.get("metadata") or {}).get("langgraph_node")
    if thread is None or node is None:
        raise ValueError("a gate node needs a checkpointer and a thread_id in the config")
    return f"langgraph:{thread}:{node}:{attempt}"


def gate_node(
    run: str | os.PathLike[str],
    *,
    phase: str,
    schema_id: str,
    on_approve: str,
    on_reject: str,
    payload_key: str = "draft",
    approved_key: str = "approved",
    feedback_key: str = "feedback",
    attempt_key: str = "gate_attempt",
    registry: Registry | None = None,
) -> GateNode:
    """A node that gates ``state[payload_key]`` and routes to ``on_approve``/``on_reject``.

    The payload may be bytes, str, a dict or a pydantic model (as ``submit`` takes it).
    Raises ``HandoffNotApproved`` if the handoff was edited after its approval.
    """
    run_dir = Path(run)

    def look(handoff: str) -> WaitResult:
        return wait(run_dir, handoff, timeout=0, registry=registry)

    def node(state: Any, config: RunnableConfig) -> Command[str]:
        attempt = int(state.get(attempt_key) or 0)
        ref = submit(
            run_dir,
            state[payload_key],
            phase=phase,
            schema_id=schema_id,
            idempotency_key=_key(config, attempt),
            registry=registry,
        )
        result = look(ref.id)
        while result.outcome is WaitOutcome.TIMEOUT:
            interrupt({"run": str(run_dir), "handoff": ref.id, "phase": phase, "schema": schema_id})
            result = look(ref.id)
        if settled(result, ref.id):
            return Command(
                goto=on_approve, update={approved_key: result.payload, feedback_key: None}
            )
        return Command(
            goto=on_reject,
            update={feedback_key: rejection_text(result), attempt_key: attempt + 1},
        )

    return node


async def resume_after_decision(
    value: Mapping[str, Any], *, timeout: float | None = None, registry: Registry | None = None
) -> Command[Any]:
    """Wait for the handoff a gate node interrupted on, then the ``Command`` to resume with.

    ``value`` is the interrupt's value. The resume carries the outcome for the record;
    the node re-reads the decision itself.
    """
    result = await wait_async(value["run"], value["handoff"], timeout=timeout, registry=registry)
    return Command(resume={"handoff": value["handoff"], "outcome": result.outcome.value})
