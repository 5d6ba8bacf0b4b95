"""LangGraph: a gate node that holds a graph thread until a person decides.

Usage, the state key and ``resume_all``: docs/integration.md, "LangGraph: a gate node".
The node's idempotency key is ``langgraph:THREAD:CHECKPOINT_NS:COUNT``: ``checkpoint_ns``
is the same when the node runs again on a resume or a replay and unique per ``Send``
branch, and ``COUNT`` goes up on every settled handoff, so a re-run finds its handoff
while a new task on a reused thread gets its own. The resume value is only a hint: the
node reads the decision from the run, under its ``policy``, so a forged or stale
``Command(resume=...)`` approves nothing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypedDict, Unpack

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Interrupt, interrupt

from handoff_gate.gates.api import wait_async
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import StoreSpec
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.integrations.adapter_options import HandoffOptions, KeySpec, PolicySpec
from handoff_gate.integrations.feedback import rejection_text, settled

#: The ``type`` of every interrupt value a gate node raises, so a driver can tell the
#: gate's interrupts from its graph's own.
INTERRUPT_TYPE = "handoff_gate"


class GateState(TypedDict, total=False):
    """The gate node's one state key: ``count`` handoffs settled on this thread, the
    last one's ``handoff`` id and ``outcome``, and its ``approved`` payload (approved)
    or ``feedback`` (rejected, for the producer's next attempt)."""

    count: int
    handoff: str
    outcome: str
    approved: dict[str, Any] | None
    feedback: str | None


class GateNode(Protocol):
    """A node taking the graph's state (whatever mapping it declares) and its config.

    A protocol rather than a ``Callable`` alias: LangGraph's ``add_node`` infers the
    node's input type from it, and ``Callable[[Any, ...]]`` made mypy infer ``Never``.
    """

    def __call__(self, state: Any, config: RunnableConfig) -> Command[str]: ...


def _key(config: RunnableConfig, count: int) -> str:
    configurable = config.get("configurable") or {}
    thread, namespace = configurable.get("thread_id"), configurable.get("checkpoint_ns")
    if thread is None or not namespace:
        raise ValueError("a gate node needs a checkpointer and a thread_id in the config")
    return f"langgraph:{thread}:{namespace}:{count}"


def gate_node(
    run: str | os.PathLike[str],
    *,
    on_approve: str,
    on_reject: str,
    payload_key: str = "draft",
    key: str = "gate",
    signing_key: KeySpec = None,
    **options: Unpack[HandoffOptions],
) -> GateNode:
    """A node that gates ``state[payload_key]`` and routes to ``on_approve``/``on_reject``;
    its keywords: docs/integration.md, "LangGraph: a gate node".

    Unlike the other adapters the node never withdraws on its ``timeout``: its end is
    ``interrupt()``, the graph pausing on purpose with the wait in its checkpoint, not
    giving up; a graph that may be abandoned there gives ``expires_in``.
    """
    checked("gate_node", options, HandoffOptions)
    where = os.fspath(run)
    phase, schema_id, timeout = options["phase"], options["schema_id"], options.get("timeout", 0)

    def gate() -> Gate:
        contracts, policy = options.get("registry"), options.get("policy")
        return Gate(options.get("store"), contracts=contracts, policy=policy, key=signing_key)

    def look(ref: HandoffRef) -> WaitResult:
        with gate() as looking:
            return looking.wait(where, ref, timeout=timeout)

    def node(state: Any, config: RunnableConfig) -> Command[str]:
        mine: Mapping[str, Any] = state.get(key) or {}
        count = int(mine.get("count") or 0)
        with gate() as submitting:
            ref = submitting.submit(
                where,
                state[payload_key],
                phase=phase,
                schema_id=schema_id,
                idempotency_key=_key(config, count),
                expires_in=options.get("expires_in"),
            )
        result = look(ref)
        while result.outcome is WaitOutcome.TIMEOUT:
            interrupt(
                {
                    "type": INTERRUPT_TYPE,
                    "run": where,
                    "handoff": ref.id,
                    "sha256": ref.sha256,
                    "phase": phase,
                    "schema": schema_id,
                }
            )
            result = look(ref)
        approved = settled(result, ref.id)
        settled_now: GateState = {
            "count": count + 1,
            "handoff": ref.id,
            "outcome": "approved" if approved else "rejected",
            "approved": result.payload if approved else None,
            "feedback": None if approved else rejection_text(result),
        }
        return Command(goto=on_approve if approved else on_reject, update={key: settled_now})

    return node


def _gate_interrupts(interrupts: Iterable[Interrupt]) -> list[Interrupt]:
    """The interrupts a gate node raised, with a run and a handoff to wait for."""
    return [
        pending
        for pending in interrupts
        if isinstance(pending.value, Mapping)
        and pending.value.get("type") == INTERRUPT_TYPE
        and isinstance(pending.value.get("run"), str)
        and isinstance(pending.value.get("handoff"), str)
    ]


def _ref(value: Mapping[str, Any]) -> HandoffRef:
    sha256 = value.get("sha256")
    return HandoffRef.of(value["run"], value["handoff"], sha256 if isinstance(sha256, str) else "")


async def resume_all(
    interrupts: Iterable[Interrupt],
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    policy: PolicySpec = None,
    store: StoreSpec | None = None,
) -> Command[Any]:
    """Wait until at least one pending gate is decided; the ``Command`` resuming every
    decided one by interrupt id (``{id: {"handoff", "outcome"}}``).

    Interrupts no gate node raised are left alone (``ValueError`` if there is no gate's
    among them). ``TimeoutError`` when none is decided within ``timeout``; the handoffs
    stay pending (this submitted none of them, so it withdraws none).
    """
    gates = _gate_interrupts(interrupts)
    if not gates:
        raise ValueError("no pending handoff_gate interrupt to resume")
    with Gate(store, contracts=registry, policy=policy) as gate:
        waits = {
            asyncio.ensure_future(gate.wait_async(p.value["run"], _ref(p.value))): p for p in gates
        }
        try:
            finished, _ = await asyncio.wait(
                waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for task in waits:
                task.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        outcomes = {waits[task].id: task.result().outcome.value for task in finished}
        if not outcomes:
            raise TimeoutError(f"no pending gate was decided within {timeout} s")
        for pending in gates:  # decided meanwhile, but its wait had not looked yet
            if pending.id not in outcomes:
                state = gate.standing(pending.value["run"], pending.value["handoff"]).state
                if state in _DECIDED:
                    outcomes[pending.id] = state.value
    by_id = {p.id: p for p in gates}
    return Command(
        resume={
            pending_id: {"handoff": by_id[pending_id].value["handoff"], "outcome": outcome}
            for pending_id, outcome in outcomes.items()
        }
    )


_DECIDED = frozenset({HandoffState.APPROVED, HandoffState.REJECTED, HandoffState.CHANGED})


async def resume_after_decision(
    value: Mapping[str, Any], *, timeout: float | None = None, registry: Registry | None = None
) -> Command[Any]:
    """Wait for the one handoff a gate node interrupted on, then the ``Command`` to resume
    with (``resume_all`` for a graph that may have several pending).

    ``value`` is the interrupt's value. The resume carries the outcome for the record;
    the node re-reads the decision itself.
    """
    result = await wait_async(value["run"], _ref(value), timeout=timeout, registry=registry)
    return Command(resume={"handoff": value["handoff"], "outcome": result.outcome.value})
