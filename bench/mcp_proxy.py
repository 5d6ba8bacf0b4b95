"""An ungated ``tools/call`` through ``handoff-gate mcp-proxy`` against the same server called
directly (issue 32: at most 1.3× at p50 and at p95).

Two hosts (the ``mcp`` SDK's ``ClientSession``) stay connected for the whole run: one to
``@modelcontextprotocol/server-filesystem`` run directly, one to the same server behind the
proxy with ``--gate 'write_*'``, so ``read_text_file`` passes straight through. Calls
alternate between the two, so drift on the shared machine hits both alike; each sample is
one call's round trip as the host sees it, after a warm-up of both paths.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from bench.config import Context
from bench.figures import Figure, Target
from bench.stats import summarize

ROOT = Path(__file__).resolve().parent.parent
SERVER = (
    ROOT
    / "tests"
    / "mcp_servers"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-filesystem"
    / "dist"
    / "index.js"
)
MAX_RATIO = 1.3
#: Calls per path for each repetition the profile asks of a latency figure.
CALLS_PER_REP = 10
WARM_UP = 20


@asynccontextmanager
async def _host(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(session: ClientSession, path: Path) -> float:
    started = time.perf_counter()
    result = await session.call_tool("read_text_file", {"path": str(path)})
    elapsed = (time.perf_counter() - started) * 1000
    if not isinstance(result, CallToolResult) or result.is_error:
        raise RuntimeError(f"the read failed: {result!r}")
    return elapsed


async def _measure(ctx: Context, calls: int) -> tuple[list[float], list[float]]:
    files = ctx.workdir / "files"
    files.mkdir()
    target = files / "note.txt"
    target.write_text("a short file the tool reads\n" * 4)
    node = ["node", str(SERVER), str(files)]
    direct = StdioServerParameters(command=node[0], args=node[1:])
    gate = ["-m", "handoff_gate.cli", "mcp-proxy", str(ctx.workdir / "run"), "--gate", "write_*"]
    proxied = StdioServerParameters(command=ctx.python, args=[*gate, "--", *node])
    through: list[float] = []
    alone: list[float] = []
    async with _host(direct) as plain, _host(proxied) as gated:
        for _ in range(WARM_UP):
            await _call(plain, target)
            await _call(gated, target)
        for i in range(calls):
            # Alternate which path goes first, so neither always follows the other.
            if i % 2:
                alone.append(await _call(plain, target))
                through.append(await _call(gated, target))
            else:
                through.append(await _call(gated, target))
                alone.append(await _call(plain, target))
    return through, alone


def run(ctx: Context) -> list[Figure]:
    if not SERVER.exists():
        raise RuntimeError("no server-filesystem: make tests/mcp_servers/node_modules/.installed")
    calls = ctx.profile.latency_reps * CALLS_PER_REP
    through, alone = anyio.run(_measure, ctx, calls)
    value, baseline = summarize(through), summarize(alone)
    note = "an ungated read_text_file through mcp-proxy, vs server-filesystem called directly"
    return [
        Figure(
            name=f"mcp.proxy_ungated_call_{stat}",
            unit="ms",
            value=value,
            baseline_name="the server called directly",
            baseline=baseline,
            target=Target(stat=stat, max_ratio=MAX_RATIO),
            note=note,
        )
        for stat in ("median", "p95")
    ]
