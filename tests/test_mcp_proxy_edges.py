"""``mcp-proxy`` as hosts really start it and as a hostile host talks to it (issue 40): the
server command without ``--`` (the MCP Inspector drops a literal one), and a
``tools/call`` without a valid request id, which must never reach the server. Against
the npm reference servers, as ``test_mcp_proxy`` runs them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cli_helpers import GATE, cli
from test_mcp_proxy import (
    BOUND,
    FILESYSTEM,
    connected,
    files,
    filesystem,
    handoffs,
    reviewed_call,
    reviewer,
    text,
    waiting_handoff,
)

if TYPE_CHECKING:
    from mcp import StdioServerParameters

__all__ = ["files"]  # the fixture, used by name


def bare(run: Path, *flags: str, server: list[str]) -> StdioServerParameters:
    """The proxy's entry as the MCP Inspector passes it: no ``--`` before the server."""
    from mcp import StdioServerParameters

    args = ["-m", "handoff_gate.cli", "mcp-proxy", str(run), *flags, *server]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


async def test_without_dashes_the_server_runs_and_its_writes_are_gated(
    tmp_path: Path, files: Path
) -> None:
    run, target = tmp_path / "run", files / "note.txt"
    params = bare(run, "--gate", "write_*", server=filesystem(files))
    async with connected(params) as session:
        listing = await session.list_tools()
        assert "write_file" in {tool.name for tool in listing.tools}
        read = await session.call_tool("list_directory", {"path": str(files)})
        assert not read.is_error, text(read)  # ungated: straight through
        args = {"path": str(target), "content": "approved"}
        result, row = await reviewed_call(session, "write_file", args, reviewer(run, "approve"))
    assert not result.is_error, text(result)
    assert target.read_text() == "approved"
    assert row["tool"]["name"] == "write_file"


async def test_a_servers_own_options_after_its_command_stay_its_own(
    tmp_path: Path, files: Path
) -> None:
    """``--gate`` after the server's command is the server's word, not the proxy's: here
    a second root folder argument that happens to look like an option is passed on."""
    run = tmp_path / "run"
    odd = files / "--gate"
    odd.mkdir()
    params = bare(run, server=[*filesystem(files), str(odd)])
    async with connected(params) as session:
        roots, _ = await reviewed_call(
            session, "list_allowed_directories", {}, reviewer(run, "approve")
        )
    assert not roots.is_error and "--gate" in text(roots)
    # no --gate reached the proxy: every tool stayed gated, this one too
    assert [r["tool"]["name"] for r in handoffs(run)] == ["list_allowed_directories"]


@pytest.mark.parametrize("request_id", [None, 1.5, 1.0, True, {"a": 1}, "absent"])
def test_a_tool_call_without_a_valid_id_is_an_error_and_never_forwarded(
    tmp_path: Path, files: Path, request_id: Any
) -> None:
    run, target, seen = tmp_path / "run", files / "x.txt", tmp_path / "server-stdin.log"
    server = f"tee {shlex.quote(str(seen))} | exec node {FILESYSTEM} {shlex.quote(str(files))}"
    proc = subprocess.Popen(
        [*GATE, "mcp-proxy", str(run), "sh", "-c", server],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        client = {"name": "host", "version": "1.0"}
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert json.loads(proc.stdout.readline())["id"] == 1
        call: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/call"}
        if request_id != "absent":
            call["id"] = request_id
        call["params"] = {"name": "write_file", "arguments": {"path": str(target), "content": "x"}}
        send(proc, call)
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] is None and answer["error"]["code"] == -32600
        assert "tools/call needs an id" in answer["error"]["message"]
        send(proc, {"jsonrpc": "2.0", "id": 9, "method": "ping"})  # the session goes on
        assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 9, "result": {}}
        proc.stdin.close()
        proc.wait(timeout=BOUND)
    finally:
        proc.kill()
        proc.wait(timeout=BOUND)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == 0
    assert "tools/call" not in seen.read_text()  # the server never saw it
    assert '"ping"' in seen.read_text()
    assert not target.exists() and handoffs(run) == []


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def test_a_killed_proxys_call_says_its_caller_gave_up_and_cannot_be_approved(
    tmp_path: Path, files: Path
) -> None:
    """Only the proxy would forward the call: once it is gone, approving runs nothing."""
    run, target = tmp_path / "run", files / "x.txt"
    proc = subprocess.Popen(
        [*GATE, "mcp-proxy", str(run), *filesystem(files)], start_new_session=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        client = {"name": "host", "version": "1.0"}
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert json.loads(proc.stdout.readline())["id"] == 1
        args = {"path": str(target), "content": "x"}
        call = {"name": "write_file", "arguments": args}
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        row = waiting_handoff(run)
        assert row["caller_gave_up"] is False
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the proxy and its server, no handler runs
        proc.wait(timeout=BOUND)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
    (row,) = handoffs(run)
    assert row["state"] == "pending" and row["caller_gave_up"] is True
    late = cli("decide", str(run), row["id"], "approve", "--reviewer", "alice")
    assert late.returncode != 0 and "its caller gave up; nothing would run" in late.stderr
    assert not target.exists()
