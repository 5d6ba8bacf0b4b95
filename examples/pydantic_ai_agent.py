"""A pydantic-ai agent whose output waits for a person (offline: a scripted FunctionModel).

    .venv/bin/python examples/pydantic_ai_agent.py /tmp/agent-run

Decide each handoff with ``handoff-gate watch /tmp/agent-run`` (or ``decide``). The
scripted model leaves ``risks`` empty until a reviewer's reject tells it otherwise;
the approved plan is printed as JSON. Replace ``FunctionModel(scripted)`` by a real model
name (``"openai:gpt-4o"``...) for a real agent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from handoff_gate.integrations.pydantic_ai import approval_gate
from handoff_gate.schemas import example_path
from handoff_gate.schemas.planning import Plan

PLAN = json.loads(example_path("plan/v1").read_bytes())


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A stand-in model: names a risk only after it was told why it was rejected."""
    told = any(
        "rejected" in str(getattr(part, "content", ""))
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
    )
    plan = {**PLAN, "risks": ["the export may miss manual retries"] if told else []}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, json.dumps(plan))])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--timeout", type=float, default=None)
    args = parser.parse_args()
    agent = Agent(FunctionModel(scripted), output_type=Plan, retries=3)
    agent.output_validator(
        approval_gate(args.run_dir, phase="plan", schema_id="plan/v1", timeout=args.timeout)
    )
    result = await agent.run("Plan the churn study.")
    print(result.output.model_dump_json(by_alias=True))


if __name__ == "__main__":
    asyncio.run(main())
