"""``handoff-gate mcp-proxy``: put an MCP server's tool calls through the gate.

Everything that can be wrong before the host connects is one line and exit 2, so a host
shows it as the server's failure to start. ``integrations.mcp_proxy`` holds the routing,
``integrations.mcp_gating`` what happens to a gated call.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import uuid

from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line
from handoff_gate.cli.inputs import created_run
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.integrations.mcp_gating import EVERY_TOOL, Gating
from handoff_gate.integrations.mcp_proxy import serve


def run(gate: Gate, args: argparse.Namespace) -> int:
    server: list[str] = args.server or []
    if not server:
        raise UsageError("no server to run: give its command after RUN, e.g. npx -y SERVER")
    if shutil.which(server[0]) is None:
        raise UsageError(f"cannot start {visible(server[0])!r}: no such executable file")
    if args.key is not None and args.policy is None:
        raise UsageError("--key signs each tool call as a producer the policy names: give --policy")
    created_run(args.run_dir, gate.setup.store, "use the run")
    gating = Gating(
        gate,
        args.run_dir,
        session=f"mcp-{uuid.uuid4().hex}",
        patterns=tuple(args.gate) if args.gate else EVERY_TOOL,
        timeout=args.timeout,
    )
    try:
        server_closed = asyncio.run(serve(gating, server[0], server[1:]))
    except OSError as exc:
        raise UsageError(f"cannot start {visible(server[0])!r}: {one_line(exc)}") from exc
    if server_closed:
        print("handoff-gate mcp-proxy: the MCP server exited", file=sys.stderr)
        return FAIL
    return OK
