"""Inspecting a tool call's arguments against the reference MCP servers' own schemas.

A gated MCP call is inspected before anyone is asked: the tool's ``inputSchema`` from
the server's ``tools/list`` is the contract, the model's arguments the bytes. This
measures that inspection against what ``jsonschema-rs`` alone costs on the same bytes
(``json.loads`` and ``is_valid``), for every tool of ``server-filesystem`` and
``server-everything`` (installed by ``make tests/mcp_servers/node_modules/.installed``),
each with arguments built from its schema, in the same interleaved rounds. The target:
the median at most 5× the validator's.

Both sides are timed in the thread's CPU time (``time.thread_time``): a timing of 200
calls spans one to two milliseconds, which on a shared machine is often cut by another
process's turn on the core, and the longer side is cut more often (wall-clock ratios
of 15–25× were measured at load average 10 for a cost of about 6×). The wall-clock
ratio of the same rounds is in the note.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import jsonschema_rs
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from bench.config import Context
from bench.figures import Figure, Target
from bench.inspect_cost import _ms
from bench.stats import summarize
from handoff_gate.gates.contracts.json_schema import contract_from_json_schema
from handoff_gate.gates.inspect.stages import InspectOptions, inspect

SERVERS = Path(__file__).resolve().parent.parent / "tests" / "mcp_servers" / "node_modules"
#: (name, the script, its arguments after the script)
_SERVERS = (
    ("filesystem", "@modelcontextprotocol/server-filesystem/dist/index.js", ["{root}"]),
    ("everything", "@modelcontextprotocol/server-everything/dist/index.js", ["stdio"]),
)
MAX_RATIO = 5.0
#: Calls per timing: one call takes microseconds, below what a single timing resolves.
BATCH = 200
AS_TOOL_CALL = InspectOptions(tool_call=True)


async def _tool_schemas(root: Path) -> dict[str, dict[str, Any]]:
    """Every tool's ``inputSchema``, as each server lists it."""
    found: dict[str, dict[str, Any]] = {}
    for name, script, args in _SERVERS:
        path = SERVERS / script
        if not path.exists():
            raise RuntimeError(f"no {path}: make tests/mcp_servers/node_modules/.installed")
        params = StdioServerParameters(
            command="node", args=[str(path), *(a.format(root=root) for a in args)]
        )
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            listed = await session.list_tools()
            for tool in listed.tools:
                found[f"{name}/{tool.name}"] = dict(tool.input_schema)
    return found


def sample(schema: Any) -> Any:
    """Arguments a model would send: every property its schema names, a plain value each."""
    if not isinstance(schema, dict):
        return "x"
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: sample(sub) for key, sub in properties.items()}
    if kind == "array":
        return [sample(schema.get("items"))]
    if kind in ("number", "integer"):
        return 3
    if kind == "boolean":
        return True
    if schema.get("format") == "uri":
        return "https://example.com/notes/today.txt"
    return "/tmp/notes/today.txt"


def _validator(schema: dict[str, Any], data: bytes) -> Any:
    validator = jsonschema_rs.validator_for(schema, validate_formats=True)

    def run() -> Any:
        return validator.is_valid(json.loads(data))

    return run


def _batch(fn: Any, count: int) -> Any:
    def run() -> None:
        for _ in range(count):
            fn()

    return run


#: One timing: (thread CPU time, wall-clock time), in seconds.
Timing = tuple[float, float]


def _rounds(reps: int, ours: Any, theirs: Any) -> tuple[list[Timing], list[Timing]]:
    """Each timed once per round, alternating which goes first. The collector is run
    once before, not before every timing: a collection of this process's heap costs
    more than a hundred calls, and a real caller's collector runs as it does here."""
    ours(), theirs()  # warm-up: first calls build caches
    gc.collect()
    mine: list[Timing] = []
    base: list[Timing] = []
    for i in range(reps):
        order = ((ours, mine), (theirs, base)) if i % 2 == 0 else ((theirs, base), (ours, mine))
        for fn, out in order:
            cpu, wall = time.thread_time(), time.perf_counter()
            fn()
            out.append((time.thread_time() - cpu, time.perf_counter() - wall))
    return mine, base


def run(ctx: Context) -> list[Figure]:
    schemas = anyio.run(_tool_schemas, ctx.workdir)
    ours: list[Timing] = []
    base: list[Timing] = []
    smoke = ctx.profile.name == "smoke"  # proves the harness runs: a few calls each
    reps = 2 if smoke else max(3, ctx.profile.cost_small_reps // 20)
    batch = 10 if smoke else BATCH
    chosen = list(schemas.items())
    if smoke:  # every seventh tool: the harness proven on both servers in a few seconds
        chosen = chosen[::7]
    for name, schema in chosen:
        data = json.dumps(sample(schema)).encode()
        contracts = {name: contract_from_json_schema(schema)}
        report = inspect(data, name, contracts, AS_TOOL_CALL)
        if not report.approvable:
            raise RuntimeError(f"{name}: the sample arguments are blocked: {report.findings}")
        mine, theirs = _rounds(
            reps,
            _batch(partial(inspect, data, name, contracts, AS_TOOL_CALL), batch),
            _batch(_validator(schema, data), batch),
        )
        ours.extend(mine)
        base.extend(theirs)
    wall = statistics.median(t[1] for t in ours) / statistics.median(t[1] for t in base)
    return [
        Figure(
            name="json_schema.mcp_tool_arguments_vs_is_valid",
            unit="ms",
            value=summarize(_ms([cpu for cpu, _ in ours], per=batch)),
            baseline_name="jsonschema-rs is_valid (pre-built, json.loads)",
            baseline=summarize(_ms([cpu for cpu, _ in base], per=batch)),
            target=Target(stat="median", max_ratio=MAX_RATIO),
            note=f"{len(chosen)} tools of server-filesystem and server-everything, "
            f"arguments built from each tools/list schema, inspected as tool calls; "
            f"per call, timed {batch} at a time in thread CPU time; "
            f"wall clock: {wall:.2f}x",
        )
    ]
