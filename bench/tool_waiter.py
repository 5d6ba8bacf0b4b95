"""Agent process for the tool-call benchmark: a pydantic-ai agent whose one tool call
waits in ``tool_approvals`` until a person approves it.

``python -m bench.tool_waiter RUN_DIR CALL_ID`` prints the perf_counter at the moment the
approved tool ran (CLOCK_MONOTONIC, comparable with the deciding process): what a
pipeline notices is the framework resuming, not the gate's wait returning.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from handoff_gate.integrations.pydantic_ai import tool_approvals


def main() -> None:
    run_dir, call_id = Path(sys.argv[1]), sys.argv[2]
    ran: list[float] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1:
            return ModelResponse(parts=[TextPart("done")])
        args = {"customer": "c1", "amount_cents": 500}
        return ModelResponse(parts=[ToolCallPart("send_refund", args, tool_call_id=call_id)])

    agent = Agent(FunctionModel(model), capabilities=[tool_approvals(run_dir, timeout=60)])

    @agent.tool_plain(requires_approval=True)
    def send_refund(customer: str, amount_cents: int) -> str:
        ran.append(time.perf_counter())
        return "refunded"

    result = asyncio.run(agent.run("refund"))
    print(json.dumps({"t": ran[0] if ran else None, "outcome": result.output}))


if __name__ == "__main__":
    main()
