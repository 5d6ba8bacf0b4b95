"""Fake model servers for the real coding agents: Anthropic Messages (Claude Code) and
Gemini ``streamGenerateContent`` (Gemini CLI), both over SSE, on 127.0.0.1.

The conversation a test needs is two turns: the model's first answer is one tool call
(the test's :class:`ToolCall`), the agent runs its hook and then the tool (or not), and
its next request carries what the model is told: the tool's output or the denial reason.
The server records that text in :attr:`FakeModel.results` and ends the conversation.

A request is part of that conversation when it offers the model the call's tool; the
agents also send side requests (a title, a summary, a check of who speaks next), which
get a short text answer so the agent carries on. Every request body is kept in
:attr:`FakeModel.requests` for the failure message.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The text the model ends with once it has seen what became of its call.
DONE = "Done."
#: The id of the one tool call the Anthropic fake makes.
TOOL_USE_ID = "toolu_01HandoffGateTest"


@dataclass(frozen=True)
class ToolCall:
    """The call the model makes on its first turn, in the agent's own tool names."""

    name: str
    arguments: dict[str, Any]


@dataclass
class Exchange:
    path: str
    body: dict[str, Any]


@dataclass
class FakeModel(ABC):
    """A threaded HTTP server answering one agent's model API from a :class:`ToolCall`."""

    call: ToolCall
    requests: list[Exchange] = field(default_factory=list)
    #: What the model received after its call: the tool's output or why it did not run.
    results: list[str] = field(default_factory=list)
    calls_made: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body: dict[str, Any] = json.loads(raw) if raw else {}
                with fake._lock:
                    fake.requests.append(Exchange(self.path, body))
                    status, content_type, chunks = fake.answer(self.path, body)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Cache-Control", "no-cache")
                data = b"".join(chunks)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_HEAD = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @abstractmethod
    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, Iterator[bytes]]:
        """The status, content type and body chunks for one request, in the API's words."""

    def transcript(self) -> str:
        """Every request, for an assertion's message."""
        return "\n".join(f"{r.path} {json.dumps(r.body)[:2000]}" for r in self.requests)


def sse(events: list[tuple[str | None, dict[str, Any]]]) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {json.dumps(data)}\n\n".encode()


class AnthropicFake(FakeModel):
    """``POST /v1/messages`` (streamed or not), as Claude Code calls it through
    ``ANTHROPIC_BASE_URL``; ``count_tokens`` gets a count."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, Iterator[bytes]]:
        if "count_tokens" in path:
            return 200, "application/json", iter([b'{"input_tokens": 1}'])
        if not path.startswith("/v1/messages"):
            return 404, "application/json", iter([b'{"type": "error"}'])
        tools = {tool.get("name") for tool in body.get("tools") or []}
        if self.call.name not in tools:
            return self._message(body, [{"type": "text", "text": DONE}], "end_turn")
        result = self._result(body)
        if result is None:
            self.calls_made += 1
            use = {"type": "tool_use", "id": TOOL_USE_ID, "name": self.call.name}
            return self._message(body, [{**use, "input": self.call.arguments}], "tool_use")
        self.results.append(result)
        return self._message(body, [{"type": "text", "text": DONE}], "end_turn")

    @staticmethod
    def _result(body: dict[str, Any]) -> str | None:
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == TOOL_USE_ID:
                    inner = block.get("content")
                    if isinstance(inner, list):
                        return "".join(part.get("text", "") for part in inner)
                    return str(inner)
        return None

    def _message(
        self, body: dict[str, Any], content: list[dict[str, Any]], stop: str
    ) -> tuple[int, str, Iterator[bytes]]:
        model = body.get("model", "claude-test")
        usage = {"input_tokens": 1, "output_tokens": 1}
        if not body.get("stream"):
            message = {
                "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage,
            }  # fmt: skip
            return 200, "application/json", iter([json.dumps(message).encode()])
        start = {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage,
        }  # fmt: skip
        events: list[tuple[str | None, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start})
        ]
        for index, block in enumerate(content):
            if block["type"] == "tool_use":
                opened = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                opened = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            events += [
                ("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": opened}),
                ("content_block_delta", {"type": "content_block_delta", "index": index,
                                         "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]  # fmt: skip
        events += [
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        return 200, "text/event-stream", sse(events)


class GeminiFake(FakeModel):
    """``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` and
    ``:generateContent``, as Gemini CLI calls them through ``GOOGLE_GEMINI_BASE_URL``."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, Iterator[bytes]]:
        if ":countTokens" in path:
            return 200, "application/json", iter([b'{"totalTokens": 1}'])
        streamed = ":streamGenerateContent" in path
        if not streamed and ":generateContent" not in path:
            return 404, "application/json", iter([b"{}"])
        declared = {
            declaration.get("name")
            for tool in body.get("tools") or []
            for declaration in tool.get("functionDeclarations") or []
        }
        if self.call.name not in declared:
            return self._reply([{"text": self._side_text(body)}], streamed)
        result = self._result(body)
        if result is None:
            self.calls_made += 1
            call = {"name": self.call.name, "args": self.call.arguments}
            return self._reply([{"functionCall": call}], streamed)
        self.results.append(result)
        return self._reply([{"text": DONE}], streamed)

    def _result(self, body: dict[str, Any]) -> str | None:
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                response = part.get("functionResponse")
                if isinstance(response, dict) and response.get("name") == self.call.name:
                    return json.dumps(response.get("response"))
        return None

    @staticmethod
    def _side_text(body: dict[str, Any]) -> str:
        """A side request asking for JSON (the model router's classifier, the
        next-speaker check) gets JSON both accept, ending the turn; any other a text."""
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json":
            return json.dumps({
                "reasoning": "simple", "next_speaker": "user",
                "complexity_reasoning": "simple", "complexity_score": 1,
            })  # fmt: skip
        return DONE

    @staticmethod
    def _reply(parts: list[dict[str, Any]], streamed: bool) -> tuple[int, str, Iterator[bytes]]:
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                              "totalTokenCount": 2},
        }  # fmt: skip
        if streamed:
            return 200, "text/event-stream", sse([(None, chunk)])
        return 200, "application/json", iter([json.dumps(chunk).encode()])
