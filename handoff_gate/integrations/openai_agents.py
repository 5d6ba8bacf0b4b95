"""OpenAI Agents SDK: a person approves each ``needs_approval`` tool call through the gate.

Usage, the thread each handoff gets and what each outcome does: docs/integration.md,
"OpenAI Agents SDK: ``needs_approval``". The SDK asks before it validates arguments and
can only run the model's own, so a call is approved only when the approved arguments
are the model's, and an approved edit runs here, during the review
(``openai_agents_edits``). A run with no thread of its own is refused rather than
guessed: another conversation whose model reuses the call ids must not find this one's
approvals.
"""

from __future__ import annotations

import json
from typing import Any, Unpack

from agents import Agent, FunctionTool, RunState
from agents.items import ToolApprovalItem
from agents.result import RunResult, RunResultStreaming

from handoff_gate.integrations.adapter_options import ReviewOptions, Run
from handoff_gate.integrations.openai_agents_edits import run_edited
from handoff_gate.integrations.tool_calls import Request, Verdict, checked_review, review_through


async def review_interruptions(
    run: Run,
    result: RunResult | RunResultStreaming | RunState[Any, Any],
    *,
    thread: str | None = None,
    **options: Unpack[ReviewOptions],
) -> RunState[Any, Any]:
    """Decide every pending approval of ``result`` through the gate; the state to resume with
    (``Runner.run(agent, state)``). ``options`` are ``ReviewOptions``: ``policy``, ``store``
    and ``key`` default to the environment's, as the CLI reads them. A wait that times out
    or is cancelled withdraws its handoffs unless ``withdraw_on_timeout=False`` (needed to
    review the same state again later); ``expires_in`` gives each handoff a deadline.
    ``thread`` names the conversation (see the module's docstring; ``ValueError`` when none
    can be known). An approval is delivered once: the same state reviewed again has its
    calls rejected, unless ``redeliver`` (crash recovery)."""
    checked_review("review_interruptions", options)
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
            why = await run_edited(state, item, tool, verdict.args or {})
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
