"""The host's side of ``mcp-proxy``: its stdin as lines that stop when the proxy stops.

The SDK's ``stdio_server`` reads stdin in a worker thread that a cancel cannot interrupt
and the interpreter waits for at exit, so a proxy whose server exited first would hang
until the host closed its end. Handed this reader instead, the SDK gets the same lines
from a daemon thread that reads the descriptor itself (``os.read``: no buffered object
whose lock the thread could hold at exit), and ``close`` ends them at once, whatever
stdin is (a pipe, a terminal, a file, ``/dev/null``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

#: The longest message accepted from the host; a longer line ends the session.
MAX_LINE = 64 * 1024 * 1024
_CHUNK = 64 * 1024
#: Chunks read ahead of the proxy: the host's writes block beyond it, as on a pipe.
_AHEAD = 16


class HostLines:
    """An async iterator of the host's lines (text, blank lines skipped)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._chunks: asyncio.Queue[bytes] = asyncio.Queue(_AHEAD)
        self._buffer = b""
        self._ended = False

    @classmethod
    @asynccontextmanager
    async def open(cls, fd: int | None = None) -> AsyncIterator[HostLines]:
        lines = cls(sys.stdin.fileno() if fd is None else fd)
        loop = asyncio.get_running_loop()
        thread = threading.Thread(
            target=lines._read, args=(loop,), name="mcp-proxy-host", daemon=True
        )
        thread.start()
        try:
            yield lines
        finally:
            lines.close()

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        """The thread: each chunk read handed to the loop, ``b""`` last; stops when the
        loop is gone (the proxy ended while the host kept its end open)."""
        while True:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except OSError:
                chunk = b""
            try:
                asyncio.run_coroutine_threadsafe(self._chunks.put(chunk), loop).result()
            except (RuntimeError, asyncio.CancelledError):
                return
            if not chunk:
                return

    def close(self) -> None:
        """End the lines: a pending read returns as if the host had closed."""
        self._ended = True
        while self._chunks.full():
            self._chunks.get_nowait()
        self._chunks.put_nowait(b"")

    def __aiter__(self) -> HostLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._line()
            if line is None:
                raise StopAsyncIteration
            if line.strip():
                return line.decode("utf-8", errors="replace")

    async def _line(self) -> bytes | None:
        """The next line without its newline; ``None`` at the end."""
        while b"\n" not in self._buffer:
            if self._ended:
                rest, self._buffer = self._buffer, b""
                return rest or None
            parts = [self._buffer]
            size = len(self._buffer)
            while True:
                chunk = await self._chunks.get()
                parts.append(chunk)
                size += len(chunk)
                if not chunk or b"\n" in chunk or size > MAX_LINE:
                    break
            self._buffer = b"".join(parts)
            if not chunk:
                self._ended = True
            elif b"\n" not in chunk:
                print("handoff-gate mcp-proxy: a host message is too long", file=sys.stderr)
                self._ended, self._buffer = True, b""
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line
