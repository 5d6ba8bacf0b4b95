"""The host's side of ``mcp-proxy``: its stdin as lines, and its stdout as one line per message.

The SDK's ``stdio_server`` spends a worker thread per line read and two per message
written, which alone made an ungated call through the proxy 1.9× a direct one
(bench/mcp_proxy.py; the issue allows 1.3×), and a thread blocked reading stdin cannot
be cancelled when the server exits first. Here both are event-loop pipes, and
``close`` ends the lines at once; anything else on stdin (a terminal, a file) is read
by a daemon thread with ``os.read`` (no buffered object whose lock it could hold at
exit). While serving, fd 1 points at stderr, so a stray ``print`` can never corrupt
the wire.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp_types import JSONRPCMessage

#: The longest message accepted from the host; a longer line ends the session.
MAX_LINE = 64 * 1024 * 1024
_CHUNK = 64 * 1024


def wire_line(message: JSONRPCMessage) -> bytes:
    """One message as one line, serialised as the SDK's stdio transports do."""
    text = message.model_dump_json(by_alias=True, exclude_unset=True)
    return text.encode("utf-8") + b"\n"


def _is_pipe(fd: int) -> bool:
    """Whether the event loop can watch ``fd``: a pipe or a socket."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class HostLines:
    """An async iterator of the host's lines (text, blank lines skipped)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._transport: asyncio.BaseTransport | None = None
        self._closed = False

    def close(self) -> None:
        """End the lines: a pending read returns as if the host had closed."""
        self._closed = True
        if self._transport is not None:
            self._transport.close()
        self._reader.feed_eof()

    def feed(self, chunk: bytes) -> None:
        """What a reading thread read (``b""``: the end), unless the lines have ended."""
        if self._closed:
            return
        if chunk:
            self._reader.feed_data(chunk)
        else:
            self._closed = True
            self._reader.feed_eof()

    def __aiter__(self) -> HostLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                raw = await self._reader.readline()
            except ValueError:  # longer than MAX_LINE: the stream cannot be resynchronised
                print("handoff-gate mcp-proxy: a host message is too long", file=sys.stderr)
                raw = b""
            if not raw:
                raise StopAsyncIteration
            if raw.strip():
                return raw.decode("utf-8", errors="replace")


@dataclass
class HostOutput:
    """Where the proxy writes the host's lines."""

    fd: int
    writer: asyncio.StreamWriter | None = None

    async def send(self, message: JSONRPCMessage) -> None:
        data = wire_line(message)
        if self.writer is not None:
            self.writer.write(data)
            await self.writer.drain()
            return
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


@asynccontextmanager
async def host_stdio() -> AsyncIterator[tuple[HostLines, HostOutput]]:
    """The host's lines in and out for the time of the ``with``."""
    loop = asyncio.get_running_loop()
    wire = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    reader = asyncio.StreamReader(limit=MAX_LINE)
    lines = HostLines(reader)
    output = HostOutput(wire)
    try:
        if _is_pipe(sys.stdin.fileno()):
            protocol = asyncio.StreamReaderProtocol(reader)
            source = os.fdopen(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
            lines._transport, _ = await loop.connect_read_pipe(lambda: protocol, source)
        else:
            _read_in_thread(sys.stdin.fileno(), lines, loop)
        if _is_pipe(wire):
            sink = os.fdopen(wire, "wb", buffering=0, closefd=False)
            transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sink)
            output.writer = asyncio.StreamWriter(transport, flow, None, loop)
        yield lines, output
    finally:
        lines.close()
        if output.writer is not None:
            output.writer.close()
        os.dup2(wire, sys.stdout.fileno())
        os.close(wire)


def _read_in_thread(fd: int, lines: HostLines, loop: asyncio.AbstractEventLoop) -> None:
    """Feed ``lines`` from ``fd`` in a daemon thread, for what the loop cannot watch (a
    terminal, a file: neither fills up memory faster than a person or a disk)."""

    def read() -> None:
        while True:
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(lines.feed, chunk)
            except RuntimeError:  # the loop is closed: the proxy has ended
                return
            if not chunk:
                return

    threading.Thread(target=read, name="mcp-proxy-host", daemon=True).start()
