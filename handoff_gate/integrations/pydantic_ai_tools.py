"""pydantic-ai: a person approves each deferred tool call through the gate.

Usage, inline (``tool_approvals``) and out of band (``resolve_tool_approvals``):
docs/integration.md, "pydantic-ai: deferred tools". An approved call runs with the
arguments as approved (``ToolApproved(override_args=...)``), so what a person did not
see never runs. Only pydantic-ai's public API is used (the run context's tool manager,
an agent's ``FunctionToolset``s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

from pydantic_ai import AbstractToolset, FunctionToolset, RunContext
from pydantic_ai.capabilities import HandleDeferredToolCalls
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import (
    DeferredToolRequests,
    DeferredToolResults,
    ToolApproved,
    ToolDefinition,
    ToolDenied,
)

from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.integrations.adapter_options import ReviewOptions, Run
from handoff_gate.integrations.tool_calls import Request, review_through


def tool_approvals(run: Run, **options: Unpack[ReviewOptions]) -> HandleDeferredToolCalls[Any]:
    """A capability that sends every call needing approval through the gate, in the run.

    Each handoff's thread is the run context's ``conversation_id``, so a run resumed from
    its message history finds the handoffs it made; ``options``: docs/integration.md,
    "pydantic-ai: deferred tools".
    """
    checked("tool_approvals", options, ReviewOptions)

    async def handle(
        ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        if not requests.approvals:  # external calls only: another capability's, or the caller's
            return None
        tools = ctx.tool_manager
        agent = ctx.agent.name if ctx.agent is not None else None

        def definition(name: str) -> ToolDefinition | None:
            return tools.get_tool_def(name) if tools is not None else None

        thread = _conversation(ctx.conversation_id)
        calls = [_request(c, definition(c.tool_name), agent, thread) for c in requests.approvals]
        return await _resolve(run, requests, calls, options)

    return HandleDeferredToolCalls(handler=handle)


async def resolve_tool_approvals(
    run: Run,
    requests: DeferredToolRequests,
    *,
    agent: Any,
    thread: str | None = None,
    **options: Unpack[ReviewOptions],
) -> DeferredToolResults:
    """The results for a run that ended with ``requests``, decided through the gate.

    ``agent`` is the agent the run was made with: each call's contract is its tool's
    schema from the agent's function toolsets. ``thread`` is the run's
    ``conversation_id`` (``ValueError`` without one: the gate does not guess which
    conversation an approval belongs to); ``options``: docs/integration.md.
    """
    checked("resolve_tool_approvals", options, ReviewOptions)
    conversation = _conversation(thread)
    definitions = _definitions(agent.toolsets)
    name = getattr(agent, "name", None)
    calls = [
        _request(c, definitions.get(c.tool_name), name, conversation) for c in requests.approvals
    ]
    return await _resolve(run, requests, calls, options)


def _definitions(toolsets: Sequence[AbstractToolset[Any]]) -> dict[str, ToolDefinition]:
    """The definitions of the tools in the agent's function toolsets, by name."""
    found: dict[str, ToolDefinition] = {}
    for toolset in toolsets:
        if isinstance(toolset, FunctionToolset):
            for tool_name, tool in toolset.tools.items():
                found.setdefault(tool_name, tool.tool_def)
    return found


def _conversation(thread: str | None) -> str:
    """The thread every handoff of a run is filed under; ``ValueError`` without one, so
    another conversation reusing call ids never finds this one's approvals."""
    if not thread:
        raise ValueError(
            "no conversation_id to scope the approvals to: pass thread= (the run's conversation_id)"
        )
    return thread


def _request(
    call: ToolCallPart, definition: ToolDefinition | None, agent: str | None, thread: str
) -> Request | None:
    """The gate's request for one call (``None``: no schema is known for its tool)."""
    if definition is None:
        return None
    return Request(
        name=call.tool_name,
        call_id=call.tool_call_id,
        args=call.args_as_json_str(),
        parameters=definition.parameters_json_schema,
        description=definition.description,
        agent=agent,
        thread=thread,
    )


async def _resolve(
    run: Run,
    requests: DeferredToolRequests,
    calls: Sequence[Request | None],
    options: ReviewOptions,
) -> DeferredToolResults:
    found = await review_through(run, [c for c in calls if c is not None], options)
    verdicts = {v.call_id: v for v in found}
    approvals: dict[str, ToolApproved | ToolDenied] = {}
    for call, asked in zip(requests.approvals, calls, strict=True):
        verdict = verdicts[call.tool_call_id] if asked is not None else None
        if verdict is None:
            message = f"The call to {call.tool_name} was not run: the gate has no schema for it."
            approvals[call.tool_call_id] = ToolDenied(message)
        elif verdict.approved:
            approvals[call.tool_call_id] = ToolApproved(override_args=dict(verdict.args or {}))
        else:
            approvals[call.tool_call_id] = ToolDenied(verdict.message)
    return requests.build_results(approvals=approvals)
