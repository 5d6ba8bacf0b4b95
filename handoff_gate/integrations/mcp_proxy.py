"""``mcp-proxy``: an MCP server over stdio that puts another one's tool calls through the gate.

The proxy routes JSON-RPC envelopes between the host (``mcp_host``) and the server it
runs (``mcp_server``), validated as the ``mcp`` SDK's ``JSONRPCMessage``. It builds no
session of its own, so every message it does not gate is passed on as it came, whatever
protocol version the two sides agree on. Only a ``tools/call`` of a gated tool is held
(``mcp_gating``); one without a valid request id, which the SDK reads as a notification,
is answered with an error and never forwarded, and a host's cancellation of a held call
withdraws its handoff (the server never saw the call).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterable, Awaitable, Callable, Mapping
from typing import Any

import anyio
from anyio.abc import TaskGroup
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)

from handoff_gate.gates.vocab.environment import KEY_ENV, POLICY_ENV, STORE_ENV
from handoff_gate.integrations.mcp_gating import Gating, error_result, failure_text, record_schemas
from handoff_gate.integrations.mcp_host import host_stdio
from handoff_gate.integrations.mcp_server import server_process

#: How long the proxy waits for the server to list its tools when a call names one it
#: has not seen listed (the call is refused if the list does not come).
LIST_TIMEOUT = 30.0
#: The gate's own settings are not the server's business: its store URL could name
#: credentials, so the server's environment is the proxy's without them.
_PRIVATE_ENV = (STORE_ENV, POLICY_ENV, KEY_ENV)
CANCELLED = "notifications/cancelled"
TOOL_CALL = "tools/call"
#: The error a ``tools/call`` without a valid request id gets (JSON-RPC: a string or a
#: whole number); it never reaches the server.
NO_VALID_ID = "Invalid Request: tools/call needs an id that is a string or a whole number"
TOOLS_CHANGED = "notifications/tools/list_changed"

Send = Callable[[JSONRPCMessage], Awaitable[None]]


def server_environment() -> dict[str, str]:
    """The environment the server runs in: the proxy's own, as a host that configured
    ``env`` for it expects, minus the gate's store, policy and key settings."""
    return {k: v for k, v in os.environ.items() if k not in _PRIVATE_ENV}


async def serve(gating: Gating, command: str, args: list[str]) -> bool:
    """Proxy between this process's stdio (the host) and ``command`` (the server) until
    one side closes; ``True`` when it was the server. ``OSError`` if the command cannot
    be started (raised before anything is read from the host)."""
    async with (
        server_process(command, args, server_environment()) as server,
        host_stdio() as (lines, output),
    ):
        proxy = _Proxy(gating, output.send, server.send)
        async with anyio.create_task_group() as tasks:
            proxy.tasks = tasks
            tasks.start_soon(_on_signal, tasks)
            tasks.start_soon(proxy.from_server, server.messages())
            await proxy.from_host(lines)
            tasks.cancel_scope.cancel()
    return proxy.server_closed


async def _on_signal(tasks: TaskGroup) -> None:
    """SIGTERM or SIGINT (a host stopping the proxy) ends it like the host's EOF."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            tasks.cancel_scope.cancel()
            return


class _Proxy:
    """The routing: two pumps, and the gated calls held between them."""

    def __init__(self, gating: Gating, to_host: Send, to_server: Send) -> None:
        self.gating = gating
        self.to_host = to_host
        self.to_server = to_server
        self.tasks: TaskGroup | None = None
        #: Each tool's ``inputSchema`` as last listed; forgotten when the tools change.
        self.schemas: dict[str, Mapping[str, Any]] = {}
        self.server_closed = False
        #: Held calls by request id: cancelling one's scope withdraws its handoff.
        self._held: dict[RequestId, anyio.CancelScope] = {}
        #: The host's ``tools/list`` requests, whose results teach the proxy the schemas.
        self._listing: set[RequestId] = set()
        #: The proxy's own requests to the server, answered to it and never to the host.
        self._own: dict[RequestId, asyncio.Future[JSONRPCMessage]] = {}
        self._counter = 0

    async def from_host(self, lines: AsyncIterable[str]) -> None:
        async for line in lines:
            try:
                message = jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                await self._reply_error(None, PARSE_ERROR, "Parse error: not JSON-RPC")
                continue
            if not await self._intercepted(message):
                await self.to_server(message)

    async def from_server(self, messages: AsyncIterable[JSONRPCMessage]) -> None:
        async for message in messages:
            if not self._answered_to_proxy(message):
                await self.to_host(message)
        self.server_closed = True
        if self.tasks is not None:
            self.tasks.cancel_scope.cancel()

    async def _intercepted(self, message: JSONRPCMessage) -> bool:
        """Note what the proxy must learn from a host message; ``True`` when the proxy
        answers it (a gated call) or drops it (the cancel of a held call)."""
        if isinstance(message, JSONRPCRequest):
            params = message.params or {}
            if message.method == "initialize":
                client = params.get("clientInfo")
                name = client.get("name") if isinstance(client, dict) else None
                self.gating.agent = name if isinstance(name, str) else None
            elif message.method == "tools/list":
                self._listing.add(message.id)
            elif message.method == TOOL_CALL:
                return await self._tool_call(message, params)
        elif isinstance(message, JSONRPCNotification) and message.method == TOOL_CALL:
            # No valid id (null, 1.5, true, an object, none): the SDK reads it as a
            # notification, which a server dispatching by method would run unreviewed.
            await self._reply_error(None, INVALID_REQUEST, NO_VALID_ID)
            return True
        elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
            cancelled = _request_id((message.params or {}).get("requestId"))
            held = self._held.get(cancelled) if cancelled is not None else None
            if held is not None:
                held.cancel()
                return True
        return False

    def _answered_to_proxy(self, message: JSONRPCMessage) -> bool:
        """Note what the proxy must learn from a server message; ``True`` when it is the
        answer to the proxy's own request."""
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            waiting = self._own.pop(message.id, None)
            if waiting is not None:
                if not waiting.done():
                    waiting.set_result(message)
                return True
            if message.id in self._listing:
                self._listing.discard(message.id)
                if isinstance(message, JSONRPCResponse):
                    record_schemas(self.schemas, message.result)
        elif isinstance(message, JSONRPCNotification) and message.method == TOOLS_CHANGED:
            self.schemas.clear()
        return False

    async def _tool_call(self, message: JSONRPCRequest, params: dict[str, Any]) -> bool:
        tool = params.get("name")
        if not isinstance(tool, str):
            await self._reply_error(message.id, INVALID_PARAMS, "tools/call needs a tool name")
            return True
        if not self.gating.gated(tool):
            return False
        if message.id in self._held or self.tasks is None:
            await self._reply_error(message.id, INTERNAL_ERROR, "request id already in use")
            return True
        scope = anyio.CancelScope()
        self._held[message.id] = scope
        self.tasks.start_soon(self._held_call, scope, message, tool)
        return True

    async def _held_call(
        self, scope: anyio.CancelScope, message: JSONRPCRequest, tool: str
    ) -> None:
        """Review one call; forward it only when approved, else answer it ``isError``.

        The id stays held until the approved request is handed to the server, so a
        cancel either stops it before the server sees it or follows it there."""
        try:
            with scope:
                try:
                    result = await self._forwarded_or_refused(message, tool)
                except Exception as exc:  # fail closed: the gate's error never runs the call
                    result = error_result(failure_text(tool, exc))
                if result is not None:
                    response = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
                    await self.to_host(response)
        finally:
            self._held.pop(message.id, None)

    async def _forwarded_or_refused(
        self, message: JSONRPCRequest, tool: str
    ) -> dict[str, Any] | None:
        """``None`` once the approved request is with the server, else the refusal."""
        schema = await self._schema(tool)
        if schema is None:
            return error_result(
                f"The call to {tool} was not run: the server lists no tool of that name."
            )
        params = dict(message.params or {})
        arguments = params.get("arguments", {})
        if not isinstance(arguments, dict):  # MCP sends an object; nothing else is reviewed
            return error_result(f"The call to {tool} was not run: its arguments are not an object.")
        verdict = await self.gating.review(message.id, tool, arguments, schema)
        if not verdict.approved or verdict.args is None:
            return error_result(verdict.message)
        params["arguments"] = verdict.args
        await self.to_server(message.model_copy(update={"params": params}))
        return None

    async def _schema(self, tool: str) -> dict[str, Any] | None:
        """The tool's ``inputSchema``: as last listed, else from the proxy's own
        ``tools/list``, page by page, until the tool is found or the pages end."""
        known = self.schemas.get(tool)
        if known is not None:
            return dict(known)
        cursor: Any = None
        with anyio.fail_after(LIST_TIMEOUT):
            while True:
                result = await self._list_page(cursor)
                record_schemas(self.schemas, result)
                known = self.schemas.get(tool)
                cursor = result.get("nextCursor")
                if known is not None or not isinstance(cursor, str):
                    return dict(known) if known is not None else None

    async def _list_page(self, cursor: str | None) -> dict[str, Any]:
        self._counter += 1
        request_id = f"handoff-gate-{self.gating.session}-{self._counter}"
        # Unset, not null: a server validating the envelope refuses ``"params": null``.
        request = JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/list")
        if cursor is not None:
            request.params = {"cursor": cursor}
        answer: asyncio.Future[JSONRPCMessage] = asyncio.get_running_loop().create_future()
        self._own[request_id] = answer
        try:
            await self.to_server(request)
            reply = await answer
        finally:
            self._own.pop(request_id, None)
        if not isinstance(reply, JSONRPCResponse):
            raise RuntimeError("the server did not list its tools")
        return reply.result

    async def _reply_error(self, request_id: RequestId | None, code: int, text: str) -> None:
        error = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text))
        await self.to_host(error)


def _request_id(value: object) -> RequestId | None:
    """A cancellation's ``requestId`` if it can name a request (JSON-RPC: a string or an
    integer; ``true`` is not the request ``1``)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None
