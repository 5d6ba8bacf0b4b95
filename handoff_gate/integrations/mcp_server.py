"""The server's side of ``mcp-proxy``: the command it runs, its lines, and its end.

The SDK's ``stdio_client`` hands each message through two more tasks and two memory
streams, which made an ungated call cost 1.4× a direct one (bench/mcp_proxy.py; the
issue allows 1.3×). So the proxy runs the command itself, in its own session so its
whole process group can be ended as the MCP lifecycle says (``_stop``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp_types import JSONRPCMessage, jsonrpc_message_adapter

from handoff_gate.integrations.mcp_host import MAX_LINE, wire_line

#: How long the server has to exit after its stdin closes, then after SIGTERM.
GRACE = 2.0
_POLL = 0.01


class ServerProcess:
    """The running server: ``send`` a message to it, iterate what it says."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout

    async def send(self, message: JSONRPCMessage) -> None:
        self._stdin.write(wire_line(message))
        await self._stdin.drain()

    async def messages(self) -> AsyncIterator[JSONRPCMessage]:
        """Its messages until its stdout ends; a line that is not one is reported on
        stderr and skipped (nobody could be answered about it)."""
        while True:
            try:
                line = await self._stdout.readline()
            except ValueError:
                print("handoff-gate mcp-proxy: a server message is too long", file=sys.stderr)
                return
            if not line:
                return
            if not line.strip():
                continue
            try:
                yield jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                print("handoff-gate mcp-proxy: a server line is not JSON-RPC", file=sys.stderr)


@asynccontextmanager
async def server_process(
    command: str, args: list[str], env: dict[str, str]
) -> AsyncIterator[ServerProcess]:
    """``command`` running for the time of the ``with``; ``OSError`` if it cannot start."""
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        limit=MAX_LINE,
        start_new_session=True,
    )
    try:
        yield ServerProcess(process)
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)


async def _stop(process: asyncio.subprocess.Process) -> None:
    """Close its stdin; after the grace period SIGTERM its group, then SIGKILL. What it
    started and left in its group goes the same way: the proxy leaves no process."""
    if process.stdin is not None:
        process.stdin.close()
    await _exited(process, GRACE)
    for sent in (signal.SIGTERM, signal.SIGKILL):
        if not _signal_group(process.pid, sent):
            return
        await _exited(process, GRACE)
        if await _group_gone(process.pid, GRACE):
            return


def _signal_group(group: int, sent: int) -> bool:
    """Send ``sent`` to the group (its leader's pid); ``False`` when none of it is left."""
    try:
        os.killpg(group, sent)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member that is not ours: it cannot be ended from here
        return True
    return True


async def _group_gone(group: int, within: float) -> bool:
    with anyio.move_on_after(within):
        while _signal_group(group, 0):
            await anyio.sleep(_POLL)
    return not _signal_group(group, 0)


async def _exited(process: asyncio.subprocess.Process, within: float) -> None:
    """Wait up to ``within`` seconds for it to exit (its exit status, not its pipes: a
    grandchild holding them open must not make it look alive)."""
    with anyio.move_on_after(within):
        while process.returncode is None:
            await anyio.sleep(_POLL)
