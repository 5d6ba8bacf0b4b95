"""Running a call a reviewer edited, for the OpenAI Agents adapter.

The SDK can approve a call only as the model sent it: ``RunState.approve`` has no
arguments to run instead. So an approved edit is run by the adapter during the review,
through the tool's own ``on_invoke_tool`` (its argument parsing, its error handling),
with the edited arguments and a ``ToolContext`` the SDK would build for the call; the
model's call is then rejected in the state with a message that says it was edited, what
ran and what came back. Nothing is left for a resume to run, so a state saved after the
review and resumed elsewhere cannot run the model's original arguments.
"""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool, RunState
from agents.items import ToolApprovalItem
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall


async def run_edited(
    state: RunState[Any, Any], item: ToolApprovalItem, tool: FunctionTool, args: dict[str, Any]
) -> str:
    """Run ``tool`` with the reviewer's ``args`` for the call ``item`` asked about; the
    message the model gets as the call's output."""
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
