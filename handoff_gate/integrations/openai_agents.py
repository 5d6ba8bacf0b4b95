"""OpenAI Agents SDK: a person approves each ``needs_approval`` tool call through the gate.

Usage, the thread each handoff gets and what each outcome does: docs/integration.md,
"OpenAI Agents SDK: ``needs_approval``". The SDK asks before it validates arguments and
can only run the model's own, so a call is approved only when the approved arguments
are the model's, and an approved edit runs here, during the review
(``_run_edited``). A run with no thread of its own is refused rather than
guessed: another conversation whose model reuses the call ids must not find this one's
approvals.
"""

from __future__ import annotations

import json
from typing import Any, Unpack

from agents import Agent, FunctionTool, RunState
from agents.items import ToolApprovalItem
from agents.result import RunResult, RunResultStreaming
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.integrations.adapter_options import ReviewOptions, Run
from handoff_gate.integrations.tool_calls import Request, Verdict, review_through


async def review_interruptions(
    run: Run,
    result: RunResult | RunResultStreaming | RunState[Any, Any],
    *,
    thread: str | None = None,
    **options: Unpack[ReviewOptions],
) -> RunState[Any, Any]:
    """Decide every pending approval of ``result`` through the gate; the state to resume
    with (``Runner.run(agent, state)``). ``thread``: the module docstring; ``options``:
    docs/integration.md, "OpenAI Agents SDK"."""
    checked("review_interruptions", options, ReviewOptions)
    state = result if isinstance(result, RunState) else result.to_state()
    conversation = thread or conversation_of(state)
    items = state.get_interruptions()
    asked = [_request(item, conversation) for item in items]
    found = await review_through(run, [a for a in asked if a is not None], options)
    verdicts = {v.call_id: v for v in found}
    for item, request in zip(items, asked, strict=True):
        if request is None:
            why = f"The call to {item.name} was not run: the gate has no schema for it."
            state.reject(item, rejection_message=why)
            continue
        verdict = verdicts[request.call_id]
        tool = _function_tool(item.agent, item.name)
        if verdict.approved and verdict.edited and tool is not None:
            why = await _run_edited(state, item, tool, verdict.args or {})
            state.reject(item, rejection_message=why)
            continue
        message = _refusal(request, verdict)
        if message is None:
            state.approve(item)
        else:
            state.reject(item, rejection_message=message)
    return state


def conversation_of(state: RunState[Any, Any]) -> str:
    """The thread of a run's handoffs: its server-side conversation, else its trace;
    ``ValueError`` when it has neither (no guess)."""
    if state._conversation_id:
        return f"openai-agents:conversation:{state._conversation_id}"
    trace = state._trace_state
    if trace is not None and trace.trace_id:
        return f"openai-agents:trace:{trace.trace_id}"
    raise ValueError(
        "the run names no conversation (tracing disabled and no conversation_id), so the "
        "gate cannot tell its calls from another run's: pass thread="
    )


def _request(item: ToolApprovalItem, thread: str) -> Request | None:
    """The gate's request for one pending call (``None``: not a function tool of the
    agent's with a schema, or no call id)."""
    tool = _function_tool(item.agent, item.name)
    if tool is None or item.call_id is None or item.name is None:
        return None
    return Request(
        name=item.name,
        call_id=item.call_id,
        args=item.arguments or "{}",
        parameters=tool.params_json_schema,
        description=tool.description or None,
        agent=item.agent.name,
        thread=thread,
    )


def _function_tool(agent: Agent[Any], name: str | None) -> FunctionTool | None:
    for tool in agent.tools:
        if isinstance(tool, FunctionTool) and tool.name == name:
            return tool
    return None


def _refusal(request: Request, verdict: Verdict) -> str | None:
    """Why the call must be rejected, or ``None`` when the SDK may run it as the model
    sent it: approved, and the validated arguments are the model's own."""
    if not verdict.approved:
        return verdict.message
    if verdict.dropped:
        keys = ", ".join(verdict.dropped)
        return (
            f"The call to {request.name} was not run: the tool takes no {keys}. "
            "Call it again with only the arguments its schema names."
        )
    sent = json.loads(request.args) if isinstance(request.args, str) else request.args
    validated = verdict.args or {}
    if not isinstance(sent, dict) or any(validated.get(k) != v for k, v in sent.items()):
        return (
            f"The call to {request.name} was not run: its arguments were approved only as "
            "the gate validated them, which differ from the ones sent. Call it again."
        )
    return None


async def _run_edited(
    state: RunState[Any, Any], item: ToolApprovalItem, tool: FunctionTool, args: dict[str, Any]
) -> str:
    """Run ``tool`` with the reviewer's ``args``; the message the model gets instead.

    The SDK can approve a call only as the model sent it (``RunState.approve`` takes no
    arguments), so an edit runs here, through the tool's own ``on_invoke_tool`` and a
    ``ToolContext`` as the SDK would build it, and the model's call is then rejected.
    Nothing is left for a resume to run, so a state saved after the review cannot run
    the model's original arguments elsewhere.
    """
    edited = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    if state._context is None:  # a state not yet run: no context to run the tool in
        return f"The call to {tool.name} was not run: the run has no context to run it in."
    raw = item.raw_item
    call = (
        raw.model_copy(update={"arguments": edited})
        if isinstance(raw, ResponseFunctionToolCall)
        else None
    )
    context = ToolContext.from_agent_context(
        state._context,
        str(item.call_id),
        tool_call=call,
        agent=item.agent,
        tool_name=tool.name,
        tool_arguments=edited,
    )
    output = await tool.on_invoke_tool(context, edited)
    return (
        f"A reviewer edited the arguments of this call to {tool.name} before it ran; it "
        f"ran with {edited} instead of the arguments you sent, and returned: {output}"
    )
