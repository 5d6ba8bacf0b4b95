"""LangChain: the gate answers ``HumanInTheLoopMiddleware``'s interrupts.

Usage, both interrupt modes and each outcome's answer: docs/integration.md, "LangChain:
``HumanInTheLoopMiddleware``". A call's contract is the tool's ``tool_call_schema`` (what
the model sees), and its thread the interrupt's id, stable when a run resumes from its
checkpoint, so reviewing the same interrupts again, in any process, finds the same
handoffs; an approved edit is answered ``edit``, so only what a person saw runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from langchain_core.tools import BaseTool
from langgraph.types import Command, Interrupt
from pydantic import BaseModel

from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.integrations.adapter_options import ReviewOptions, Run
from handoff_gate.integrations.tool_calls import Request, Verdict, review_through


async def review_interrupts(
    run: Run,
    interrupts: Sequence[Interrupt],
    *,
    tools: Sequence[BaseTool],
    **options: Unpack[ReviewOptions],
) -> Command[Any]:
    """The ``Command`` that resumes every one of ``interrupts`` with the gate's decisions.

    ``tools`` are the agent's tools (their schemas are the contracts); ``options`` and
    what each outcome answers: docs/integration.md, "LangChain". ``ValueError`` for an
    interrupt that is not the middleware's.
    """
    checked("review_interrupts", options, ReviewOptions)
    by_name = {tool.name: tool for tool in tools}
    asked = [_requests(interrupt, by_name) for interrupt in interrupts]
    known = [r for requests in asked for r in requests if r is not None]
    found = await review_through(run, known, options)
    answers = iter(found)
    resume: dict[str, Any] = {}
    for interrupt, requests in zip(interrupts, asked, strict=True):
        decisions = [_decision(r, next(answers) if r is not None else None) for r in requests]
        per_call = interrupt.value.get("type") == "tool_approval"
        resume[interrupt.id] = decisions[0] if per_call else {"decisions": decisions}
    return Command(resume=resume)


def _requests(interrupt: Interrupt, tools: Mapping[str, BaseTool]) -> list[Request | None]:
    """The gate's request for each call an interrupt asks about (``None``: a tool the
    agent was not given, whose schema the gate cannot know)."""
    value = interrupt.value
    if not isinstance(value, Mapping):
        raise ValueError(f"interrupt {interrupt.id} is not a human-in-the-loop request")
    if value.get("type") == "tool_approval":
        call_id = str(value.get("tool_call_id") or "call")
        return [_request(value, tools, call_id, interrupt.id)]
    actions = value.get("action_requests")
    if not isinstance(actions, list):
        raise ValueError(f"interrupt {interrupt.id} is not a human-in-the-loop request")
    return [_request(a, tools, f"#{i + 1}", interrupt.id) for i, a in enumerate(actions)]


def _request(
    action: Mapping[str, Any], tools: Mapping[str, BaseTool], call_id: str, thread: str
) -> Request | None:
    tool = tools.get(str(action.get("name")))
    if tool is None:
        return None
    args = action.get("args")
    return Request(
        name=tool.name,
        call_id=call_id,
        args=dict(args) if isinstance(args, Mapping) else {},
        parameters=_schema(tool),
        description=tool.description or None,
        thread=thread,
    )


def _schema(tool: BaseTool) -> dict[str, Any]:
    """The arguments' JSON Schema as the model is shown it (injected arguments left out)."""
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    if issubclass(schema, BaseModel):
        return schema.model_json_schema()
    legacy: dict[str, Any] = schema.schema()  # a pydantic.v1 model
    return legacy


def _decision(request: Request | None, verdict: Verdict | None) -> dict[str, Any]:
    """The middleware's decision for one call."""
    if request is None or verdict is None:
        return {"type": "reject", "message": "the gate has no schema for this tool."}
    if not verdict.approved:
        return {"type": "reject", "message": verdict.reason}
    if verdict.args == request.args:
        return {"type": "approve"}
    return {"type": "edit", "edited_action": {"name": request.name, "args": verdict.args}}
