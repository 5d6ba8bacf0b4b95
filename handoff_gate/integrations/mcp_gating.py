"""What ``mcp-proxy`` decides about one ``tools/call``: pass it, or review it first.

A gated call goes through the same ``review`` every adapter uses
(``integrations.tool_calls``); its call id is the JSON-RPC request id, so a host's retry
under a new id is a new call. Only an approval reaches the server, with the arguments
the gate delivers; anything else, an error of the gate included, becomes an ``isError``
result saying why, so the model reads the reviewer's reason and nothing unapproved runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.integrations.tool_calls import Request, Verdict, review

#: Without ``--gate``, every tool is reviewed.
EVERY_TOOL = ("*",)
#: An error the gate's own path raised is cut here: its text may quote the payload.
_MAX_ERROR = 300


@dataclass
class Gating:
    """The proxy's review settings, and what it learnt of the host (its name)."""

    gate: Gate
    run: str
    session: str
    patterns: Sequence[str] = EVERY_TOOL
    timeout: float | None = None
    agent: str | None = None

    def gated(self, tool: str) -> bool:
        """Whether calls to ``tool`` are reviewed: the globs match case-sensitively, as
        MCP tool names are compared."""
        return any(fnmatchcase(tool, pattern) for pattern in self.patterns)

    async def review(
        self, request_id: str | int, tool: str, arguments: Any, schema: Mapping[str, Any]
    ) -> Verdict:
        """The gate's answer for one call, waited for (a cancel withdraws the handoff)."""
        request = Request(
            name=tool,
            call_id=call_id(request_id),
            args=arguments,
            parameters=schema,
            agent=self.agent,
            thread=self.session,
            sole_waiter=True,  # only this proxy would ever forward it to the server
        )
        [verdict] = await review(self.gate, self.run, [request], timeout=self.timeout)
        return verdict


def record_schemas(schemas: dict[str, Mapping[str, Any]], result: Mapping[str, Any]) -> None:
    """Each tool's ``inputSchema`` in a ``tools/list`` result (one that passed through,
    or the proxy's own), into ``schemas``."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return
    for tool in tools:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            schema = tool.get("inputSchema")
            if isinstance(schema, dict):
                schemas[tool["name"]] = schema


def call_id(request_id: str | int) -> str:
    """The request id as JSON, so ``7`` and ``"7"`` (two requests) stay two calls."""
    return json.dumps(request_id, ensure_ascii=True)


def error_result(text: str) -> dict[str, Any]:
    """A ``CallToolResult`` the host shows the model as the tool's failure."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def failure_text(tool: str, exc: BaseException) -> str:
    """Why a call was not run when the gate itself failed: fail closed, in one line."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = visible(" ".join(what.split()))[:_MAX_ERROR]
    return f"The call to {tool} was not run: handoff-gate could not review it ({line})."
