"""``handoff-gate mcp-proxy`` in front of the real reference MCP servers (issue 32).

The servers are the npm packages ``@modelcontextprotocol/server-filesystem`` and
``server-everything`` that ``make`` installs from ``tests/mcp_servers`` (pinned by its lock
file); the host is the ``mcp`` SDK's own client; the reviewer is another process deciding
through the CLI, as a person at another terminal would. What is asserted is what a user
sees: the file written or not, the text the model reads, the handoff's state, and the
processes left behind. The SDK is imported inside the functions that use it: every pytest
process collects this module (and the two that import from it), and only the one that runs
them should pay for importing the SDK (about 0.7 s of CPU).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import psycopg
import pytest
from cli_helpers import GATE, cli
from signed_policy import signed_policy

from handoff_gate.gates.store.postgres_schema import init_schema

if TYPE_CHECKING:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.session import ClientRequestContext
    from mcp_types import (
        CallToolResult,
        CreateMessageRequestParams,
        CreateMessageResult,
        ElicitRequestParams,
        ElicitResult,
    )

REPO = Path(__file__).resolve().parent.parent
SERVERS = REPO / "tests" / "mcp_servers" / "node_modules" / "@modelcontextprotocol"
FILESYSTEM = SERVERS / "server-filesystem" / "dist" / "index.js"
EVERYTHING = SERVERS / "server-everything" / "dist" / "index.js"
HOST = "test-host"
#: A guard against a test that never ends, not a measure of anything.
BOUND = 30.0


@pytest.fixture(autouse=True)
def _servers_installed() -> None:
    assert FILESYSTEM.exists() and EVERYTHING.exists(), (
        "the reference MCP servers are missing: make tests/mcp_servers/node_modules/.installed"
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    folder.mkdir()
    return folder


def proxy(run: Path, *flags: str, server: list[str]) -> StdioServerParameters:
    from mcp import StdioServerParameters

    args = ["-m", "handoff_gate.cli", "mcp-proxy", str(run), *flags, "--", *server]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


def filesystem(files: Path) -> list[str]:
    return ["node", str(FILESYSTEM), str(files)]


@asynccontextmanager
async def connected(
    params: StdioServerParameters, **callbacks: Any
) -> AsyncIterator[ClientSession]:
    """A host connected through the proxy, initialized."""
    from mcp import ClientSession, stdio_client
    from mcp_types import Implementation

    async with (
        stdio_client(params) as (read, write),
        ClientSession(
            read, write, client_info=Implementation(name=HOST, version="1.0"), **callbacks
        ) as session,
    ):
        await session.initialize()
        yield session


def handoffs(run: Path) -> list[dict[str, Any]]:
    if not (run / "handoffs").is_dir():
        return []
    done = cli("list", str(run), "--json")
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def waiting_handoff(run: Path) -> dict[str, Any]:
    """The handoff the proxy is waiting on, once it is (a reviewer sees its waiter)."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        rows = [r for r in handoffs(run) if r["state"] == "pending" and r["waiter"]]
        if rows:
            return rows[0]
        time.sleep(0.05)
    raise AssertionError(f"no handoff waited on: {handoffs(run)}")


def reviewer(run: Path, action: str, *extra: str) -> Callable[[], dict[str, Any]]:
    """A person at another terminal: finds the waiting handoff and decides it."""

    def decide() -> dict[str, Any]:
        row = waiting_handoff(run)
        done = cli("decide", str(run), row["id"], action, *extra)
        assert done.returncode == 0, done.stderr
        return row

    return decide


async def reviewed_call(
    session: ClientSession, tool: str, arguments: dict[str, Any], decide: Callable[[], Any]
) -> tuple[CallToolResult, Any]:
    """The host's call, and the reviewer deciding it meanwhile in another process."""
    from mcp_types import CallToolResult

    answers: list[CallToolResult] = []

    async def call() -> None:
        result = await session.call_tool(tool, arguments)
        assert isinstance(result, CallToolResult)
        answers.append(result)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call)
        decided = await anyio.to_thread.run_sync(decide)
    return answers[0], decided


def text(result: CallToolResult) -> str:
    from mcp_types import TextContent

    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def test_an_approved_write_runs_and_the_handoff_names_the_call(
    tmp_path: Path, files: Path
) -> None:
    run, target = tmp_path / "run", files / "note.txt"
    args = {"path": str(target), "content": "approved text"}
    async with connected(proxy(run, server=filesystem(files))) as session:
        result, row = await reviewed_call(session, "write_file", args, reviewer(run, "approve"))
    assert not result.is_error, text(result)
    assert target.read_text() == "approved text"
    assert row["tool"]["name"] == "write_file"
    assert row["tool"]["agent"] == HOST
    assert row["tool"]["thread"].startswith("mcp-")
    assert [r["state"] for r in handoffs(run)] == ["approved"]


async def test_a_rejected_write_does_not_run_and_the_host_reads_the_reason(
    tmp_path: Path, files: Path
) -> None:
    run, target = tmp_path / "run", files / "note.txt"
    args = {"path": str(target), "content": "x"}
    decide = reviewer(run, "reject", "--reason", "not in this folder, please")
    async with connected(proxy(run, "--gate", "write_*", server=filesystem(files))) as session:
        result, _ = await reviewed_call(session, "write_file", args, decide)
    assert result.is_error
    assert "not in this folder, please" in text(result)
    assert not target.exists()


async def test_an_edited_write_runs_with_the_reviewers_arguments(
    tmp_path: Path, files: Path
) -> None:
    run, target = tmp_path / "run", files / "note.txt"
    edit = tmp_path / "edit.json"
    edit.write_text(json.dumps({"path": str(target), "content": "the reviewer's text"}))
    decide = reviewer(run, "approve", "--edit", str(edit))
    async with connected(proxy(run, server=filesystem(files))) as session:
        result, _ = await reviewed_call(
            session, "write_file", {"path": str(target), "content": "model's"}, decide
        )
    assert not result.is_error, text(result)
    assert target.read_text() == "the reviewer's text"


async def test_a_write_nobody_decides_times_out_and_is_withdrawn(
    tmp_path: Path, files: Path
) -> None:
    from mcp_types import CallToolResult

    run, target = tmp_path / "run", files / "note.txt"
    async with connected(proxy(run, "--timeout", "1", server=filesystem(files))) as session:
        result = await session.call_tool("write_file", {"path": str(target), "content": "x"})
    assert isinstance(result, CallToolResult) and result.is_error
    assert "no reviewer decided within 1 s" in text(result)
    assert [r["state"] for r in handoffs(run)] == ["withdrawn"]
    assert not target.exists()


async def test_held_calls_do_not_hold_up_other_traffic_or_each_other(
    tmp_path: Path, files: Path
) -> None:
    """Two writes wait at once while a read passes; each is decided on its own."""
    from mcp_types import CallToolResult

    run = tmp_path / "run"
    (files / "a.txt").write_text("readable meanwhile")
    first, second = files / "first.txt", files / "second.txt"
    answers: dict[str, CallToolResult] = {}

    async def write(target: Path) -> None:
        result = await session.call_tool("write_file", {"path": str(target), "content": "x"})
        assert isinstance(result, CallToolResult)
        answers[target.name] = result

    def both_waiting() -> list[dict[str, Any]]:
        deadline = time.monotonic() + BOUND
        while len(rows := [r for r in handoffs(run) if r["waiter"]]) < 2:
            assert time.monotonic() < deadline, rows
            time.sleep(0.05)
        return rows

    def decide(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            stored = (run / "handoffs" / f"{row['id']}.json").read_text()
            action = "approve" if "first.txt" in stored else "reject"
            done = cli("decide", str(run), row["id"], action, "--reason", "only the first")
            assert done.returncode == 0, done.stderr

    params = proxy(run, "--gate", "write_*", server=filesystem(files))
    async with connected(params) as session, anyio.create_task_group() as tasks:
        tasks.start_soon(write, first)
        tasks.start_soon(write, second)
        rows = await anyio.to_thread.run_sync(both_waiting)
        read = await session.call_tool("read_text_file", {"path": str(files / "a.txt")})
        assert text(read) == "readable meanwhile" and not answers
        await anyio.to_thread.run_sync(decide, rows)
    assert not answers["first.txt"].is_error and first.read_text() == "x"
    assert answers["second.txt"].is_error and "only the first" in text(answers["second.txt"])
    assert not second.exists()


async def test_a_call_withdrawn_from_another_process_is_answered_withdrawn(
    tmp_path: Path, files: Path
) -> None:
    run, target = tmp_path / "run", files / "note.txt"

    def withdraw() -> None:
        row = waiting_handoff(run)
        done = cli("withdraw", str(run), row["id"], "--reason", "not needed")
        assert done.returncode == 0, done.stderr

    args = {"path": str(target), "content": "x"}
    async with connected(proxy(run, server=filesystem(files))) as session:
        result, _ = await reviewed_call(session, "write_file", args, withdraw)
    assert result.is_error
    assert "its review ended withdrawn" in text(result)
    assert not target.exists()


async def test_an_ungated_read_passes_straight_through(tmp_path: Path, files: Path) -> None:
    from mcp_types import CallToolResult

    run = tmp_path / "run"
    (files / "a.txt").write_text("plain text")
    async with connected(proxy(run, "--gate", "write_*", server=filesystem(files))) as session:
        listed = await session.list_tools()
        result = await session.call_tool("read_text_file", {"path": str(files / "a.txt")})
    assert {"read_text_file", "write_file"} <= {t.name for t in listed.tools}
    assert isinstance(result, CallToolResult) and not result.is_error
    assert text(result) == "plain text"
    assert handoffs(run) == []


async def test_a_host_cancelling_a_gated_call_withdraws_its_handoff(
    tmp_path: Path, files: Path
) -> None:
    from mcp.shared.exceptions import MCPError
    from mcp_types import REQUEST_TIMEOUT

    run, target = tmp_path / "run", files / "note.txt"
    async with connected(proxy(run, server=filesystem(files))) as session:
        with pytest.raises(MCPError) as gave_up:
            await session.call_tool(
                "write_file", {"path": str(target), "content": "x"}, read_timeout_seconds=1.5
            )
        assert gave_up.value.code == REQUEST_TIMEOUT
        deadline = time.monotonic() + BOUND
        while [r["state"] for r in handoffs(run)] != ["withdrawn"]:
            assert time.monotonic() < deadline, handoffs(run)
            await anyio.sleep(0.05)
    assert not target.exists()


async def test_a_failing_gate_answers_is_error_and_never_forwards(
    tmp_path: Path, files: Path
) -> None:
    """Fail closed: the run turned into a file under the proxy, so nothing can be stored."""
    from mcp_types import CallToolResult

    run, target = tmp_path / "run", files / "note.txt"
    async with connected(proxy(run, server=filesystem(files))) as session:
        shutil.rmtree(run)
        run.write_text("not a run")
        result = await session.call_tool("write_file", {"path": str(target), "content": "x"})
    assert isinstance(result, CallToolResult) and result.is_error
    assert "handoff-gate could not review it" in text(result)
    assert not target.exists()


async def test_a_gated_call_of_a_tool_the_server_does_not_list_is_refused(
    tmp_path: Path, files: Path
) -> None:
    from mcp_types import CallToolResult

    run = tmp_path / "run"
    async with connected(proxy(run, server=filesystem(files))) as session:
        result = await session.call_tool("format_disk", {})
    assert isinstance(result, CallToolResult) and result.is_error
    assert "lists no tool of that name" in text(result)
    assert handoffs(run) == []


async def test_progress_elicitation_and_sampling_pass_through_both_ways(tmp_path: Path) -> None:
    """server-everything's tools send progress notifications and ask the host to elicit
    and to sample; the gated elicitation tool runs once approved, its question reaching
    the host and the host's answer reaching the server."""
    from mcp_types import CallToolResult, CreateMessageResult, ElicitResult, TextContent

    run = tmp_path / "run"
    asked: list[str] = []

    async def elicit(_: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": "Ada Lovelace", "check": True})

    async def sample(
        _: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        asked.append("sampling")
        content = TextContent(type="text", text="a sampled answer")
        return CreateMessageResult(role="assistant", content=content, model="test-model")

    steps: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append(progress)

    flags = ["--gate", "trigger-elicitation-*"]
    callbacks = {"elicitation_callback": elicit, "sampling_callback": sample}
    server = ["node", str(EVERYTHING), "stdio"]
    async with connected(proxy(run, *flags, server=server), **callbacks) as session:
        long = await session.call_tool(
            "trigger-long-running-operation",
            {"duration": 0.3, "steps": 3},
            progress_callback=on_progress,
        )
        sampled = await session.call_tool("trigger-sampling-request", {"prompt": "hello"})
        elicited, _ = await reviewed_call(
            session, "trigger-elicitation-request", {}, reviewer(run, "approve")
        )
    assert isinstance(long, CallToolResult) and not long.is_error, text(long)
    assert steps == [1, 2, 3]
    assert isinstance(sampled, CallToolResult) and "a sampled answer" in text(sampled)
    assert not elicited.is_error, text(elicited)
    assert "Ada Lovelace" in text(elicited)
    assert asked[0] == "sampling" and asked[1].startswith("Please provide inputs")
    assert [r["tool"]["name"] for r in handoffs(run)] == ["trigger-elicitation-request"]


async def test_the_server_gets_the_hosts_environment_without_the_gates_settings(
    tmp_path: Path,
) -> None:
    from mcp_types import CallToolResult

    run = tmp_path / "run"
    params = proxy(run, "--gate", "write_*", server=["node", str(EVERYTHING), "stdio"])
    assert params.env is not None
    params.env |= {"HANDOFF_GATE_STORE": "", "FOR_THE_SERVER": "configured by the host"}
    async with connected(params) as session:
        result = await session.call_tool("get-env", {})
    assert isinstance(result, CallToolResult)
    environment = json.loads(text(result))
    assert environment["FOR_THE_SERVER"] == "configured by the host"
    assert "HANDOFF_GATE_STORE" not in environment


async def test_under_a_policy_the_call_is_signed_and_only_a_signed_approval_runs_it(
    tmp_path: Path, files: Path
) -> None:
    """``--policy`` and ``--key``: the handoff is signed by the proxy's producer key, an
    unsigned approval is refused, and the policy's approver's signed one runs the call."""
    keys = signed_policy(tmp_path / "trust", phase="tool-call", producers=True)
    run, target = tmp_path / "run", files / "note.txt"
    flags = ["--policy", str(keys.policy), "--key", str(keys.planner)]

    def decide() -> None:
        row = waiting_handoff(run)
        unsigned = cli("decide", str(run), row["id"], "approve", "--policy", str(keys.policy))
        assert unsigned.returncode == 1, unsigned.stderr
        signed = reviewer(run, "approve", "--policy", str(keys.policy), "--key", str(keys.alice))
        signed()

    args = {"path": str(target), "content": "signed both ways"}
    async with connected(proxy(run, *flags, server=filesystem(files))) as session:
        result, _ = await reviewed_call(session, "write_file", args, decide)
    assert not result.is_error, text(result)
    assert target.read_text() == "signed both ways"


async def test_arguments_the_tools_schema_refuses_are_denied_without_asking_anyone(
    tmp_path: Path, files: Path
) -> None:
    from mcp_types import CallToolResult

    run, target = tmp_path / "run", files / "note.txt"
    async with connected(proxy(run, server=filesystem(files))) as session:
        result = await session.call_tool("write_file", {"path": str(target)})
    assert isinstance(result, CallToolResult) and result.is_error
    assert "do not fit the tool's schema" in text(result) and "content" in text(result)
    assert [r["state"] for r in handoffs(run)] == ["blocked"]
    assert not target.exists()


def documented_entry() -> dict[str, Any]:
    """The host configuration docs/integration.md's *MCP proxy* section gives."""
    page = (REPO / "docs" / "integration.md").read_text()
    start = page.index("## MCP proxy")
    section = page[start : page.index("\n## ", start)]
    (body,) = re.findall(r"```json\n(.*?)```", section, re.S)
    entry: dict[str, Any] = json.loads(body)["mcpServers"]["filesystem"]
    return entry


async def test_the_documented_host_entry_gates_writes_and_passes_reads(
    tmp_path: Path, files: Path
) -> None:
    """The snippet as a host runs it, but with the server from tests/mcp_servers in
    place of npx (offline) and this test's folders in place of the examples."""
    from mcp import StdioServerParameters

    entry = documented_entry()
    args: list[str] = entry["args"]
    cut = args.index("--")
    assert entry["command"] == "handoff-gate" and args[0] == "mcp-proxy"
    assert args[cut + 1 : -1] == ["npx", "-y", "@modelcontextprotocol/server-filesystem"]
    run = tmp_path / "run"
    own = [str(run) if a == "/home/me/runs/mcp" else a for a in args[:cut]]
    command = str(Path(sys.executable).parent / "handoff-gate")
    params = StdioServerParameters(
        command=command, args=[*own, "--", *filesystem(files)], env=dict(os.environ)
    )
    (files / "a.txt").write_text("read freely")
    target = files / "b.txt"
    async with connected(params) as session:
        read = await session.call_tool("read_text_file", {"path": str(files / "a.txt")})
        wrote, _ = await reviewed_call(
            session, "write_file", {"path": str(target), "content": "x"}, reviewer(run, "approve")
        )
    assert text(read) == "read freely"
    assert not wrote.is_error and target.read_text() == "x"
    assert [r["tool"]["name"] for r in handoffs(run)] == ["write_file"]


async def test_the_proxy_works_on_a_database_store(
    tmp_path: Path, files: Path, pg_url: str
) -> None:
    from mcp import StdioServerParameters

    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    target = files / "note.txt"
    args = ["-m", "handoff_gate.cli", "--store", pg_url, "mcp-proxy", "job-1", "--"]
    params = StdioServerParameters(
        command=sys.executable, args=[*args, *filesystem(files)], env=dict(os.environ)
    )

    def approve() -> None:
        deadline = time.monotonic() + BOUND
        while not (rows := _pending(pg_url)):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        done = cli("--store", pg_url, "decide", "job-1", rows[0]["id"], "approve")
        assert done.returncode == 0, done.stderr

    async with connected(params) as session:
        result, _ = await reviewed_call(
            session, "write_file", {"path": str(target), "content": "in the database"}, approve
        )
    assert not result.is_error, text(result)
    assert target.read_text() == "in the database"
    assert [r["tool"]["agent"] for r in _listed(pg_url)] == [HOST]


def _listed(pg_url: str) -> list[dict[str, Any]]:
    done = cli("--store", pg_url, "list", "--json")
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def _pending(pg_url: str) -> list[dict[str, Any]]:
    """The pending handoffs the proxy waits on (its session's waiter lock held): only
    those are approvable, a proxy's call having no other consumer."""
    return [r for r in _listed(pg_url) if r["state"] == "pending" and r["waiter"]]


def test_an_unreachable_store_stops_the_proxy_before_it_serves(tmp_path: Path, files: Path) -> None:
    nowhere = "postgresql://handoff@127.0.0.1:1/nowhere?connect_timeout=2"
    done = cli("--store", nowhere, "mcp-proxy", "job-1", "--", *filesystem(files))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("handoff-gate")
    assert done.stdout == ""


# The process tests speak the wire themselves: they need the proxy's pid and exit code.


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _start(run: Path, files: Path) -> tuple[subprocess.Popen[bytes], int]:
    """The proxy, initialized by a host speaking raw JSON-RPC, and its server's pid."""
    command = [*GATE, "mcp-proxy", str(run), "--", *filesystem(files)]
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _init()})
    assert proc.stdout is not None
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 1 and "serverInfo" in answer["result"]
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    [server] = _children(proc.pid)
    return proc, server


def _init() -> dict[str, Any]:
    client = {"name": HOST, "version": "1.0"}
    return {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _stop(proc: subprocess.Popen[bytes]) -> str:
    """Wait for the proxy to end by itself; its stderr."""
    try:
        proc.wait(timeout=BOUND)
    finally:
        proc.kill()
    assert proc.stderr is not None
    return proc.stderr.read().decode()


def test_the_proxy_exits_when_the_host_closes_and_leaves_no_process(
    tmp_path: Path, files: Path
) -> None:
    proc, server = _start(tmp_path / "run", files)
    assert _alive(server)
    assert proc.stdin is not None
    proc.stdin.close()
    stderr = _stop(proc)
    assert proc.returncode == 0, stderr
    assert not _alive(server)


def test_the_proxy_exits_1_when_the_server_exits_though_the_host_stays(
    tmp_path: Path, files: Path
) -> None:
    proc, server = _start(tmp_path / "run", files)
    os.kill(server, signal.SIGKILL)
    stderr = _stop(proc)
    assert proc.returncode == 1
    assert "the MCP server exited" in stderr


def test_a_host_line_that_is_not_json_rpc_gets_a_parse_error(tmp_path: Path, files: Path) -> None:
    proc, _ = _start(tmp_path / "run", files)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": 7}\nnot json\n')
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
    assert [a["error"]["code"] for a in answers] == [-32700, -32700]
    assert all(a["id"] is None for a in answers)
    _send(proc, {"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    proc.stdin.close()
    _stop(proc)
    assert proc.returncode == 0


def test_a_request_id_sent_again_in_the_session_runs_at_most_once(
    tmp_path: Path, files: Path
) -> None:
    """The call id is the request id in the proxy's session: the same call again finds
    the handoff its approval was delivered to, and is refused ``already_delivered``."""
    run, target = tmp_path / "run", files / "once.txt"
    proc, _ = _start(run, files)
    assert proc.stdout is not None and proc.stdin is not None
    call = {"name": "write_file", "arguments": {"path": str(target), "content": "once"}}
    request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
    _send(proc, request)
    reviewer(run, "approve")()
    first = json.loads(proc.stdout.readline())
    assert not first["result"].get("isError"), first
    target.unlink()
    _send(proc, request)
    again = json.loads(proc.stdout.readline())
    assert again["id"] == 2 and again["result"]["isError"] is True
    assert "delivered to an earlier run already" in again["result"]["content"][0]["text"]
    assert not target.exists()
    assert len(handoffs(run)) == 1
    proc.stdin.close()
    _stop(proc)


@pytest.mark.parametrize("ending", ["SIGTERM", "the host's EOF", "the server's exit"])
def test_however_the_proxy_ends_held_calls_are_withdrawn_and_no_process_is_left(
    tmp_path: Path, files: Path, ending: str
) -> None:
    run = tmp_path / "run"
    proc, server = _start(run, files)
    call = {"name": "write_file", "arguments": {"path": str(files / "x"), "content": "x"}}
    _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    waiting_handoff(run)
    assert proc.stdin is not None
    if ending == "SIGTERM":
        proc.send_signal(signal.SIGTERM)
    elif ending == "the host's EOF":
        proc.stdin.close()
    else:
        os.kill(server, signal.SIGKILL)
    _stop(proc)
    assert proc.returncode == (1 if ending == "the server's exit" else 0)
    assert not _alive(server)
    assert [r["state"] for r in handoffs(run)] == ["withdrawn"]
    assert not (files / "x").exists()


def test_a_server_missing_or_not_startable_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = tmp_path / "run"
    for server in ([], ["--"], ["--", str(tmp_path / "no-such-server")]):
        done = cli("mcp-proxy", str(run), *server)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1, done.stderr
        assert "give its command after RUN" in done.stderr or "cannot start" in done.stderr
    assert not run.exists()
