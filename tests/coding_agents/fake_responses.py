"""A fake OpenAI Responses API server for driving the real Codex CLI offline.

Codex posts each turn to ``{base_url}/responses`` with the whole conversation so far in
``input`` and reads the answer as server-sent events. The fake plays a model with a
script: the n-th request of a conversation that carries n tool outputs is answered with
the script's n-th tool call, and once the script is spent with a closing message. It is
stateless per request (what to answer follows from the request alone), so Codex retrying
a request gets the same answer, and one server serves many tests and many Codex homes at
once: each test registers a :class:`Script` and gives Codex the prompt ``register``
returns, whose token picks the script. What the model got back for each call (the
command's output, or the hook's denial) is recorded on the script for the test to read.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The token in a prompt that names its script.
TOKEN = re.compile(r"script-[0-9a-f]{16}")
#: The closing message the model sends once its script is spent.
DONE = "done"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call the model makes: a tool Codex offers and its arguments."""

    name: str
    arguments: dict[str, Any]
    #: For ``write_stdin``: the index of the earlier call whose output names the
    #: session (``Process running with session ID N``) that ``session_id`` is set to.
    session_of: int | None = None


@dataclass
class Script:
    """What the model does in one conversation, and what it was sent back."""

    calls: list[ToolCall]
    #: ``call_id`` → the ``output`` of the ``function_call_output`` Codex sent for it.
    outputs: dict[str, str] = field(default_factory=dict)
    #: The tool names Codex offered in the first request.
    offered: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @staticmethod
    def call_id(index: int) -> str:
        return f"call_{index}"

    def answer(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """The events answering one request: the next scripted call, or the end."""
        items = body.get("input")
        if not isinstance(items, list):
            raise ValueError("a Responses request without an input list")
        outputs = [
            i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        with self.lock:
            if not self.offered:
                self.offered = [str(t.get("name")) for t in body.get("tools", [])]
            for output in outputs:
                self.outputs[str(output.get("call_id"))] = _output_text(output.get("output"))
            step = len(outputs)
            session = self.session(self.calls[step]) if step < len(self.calls) else None
        response_id = f"resp_{secrets.token_hex(8)}"
        item: dict[str, Any]
        if step < len(self.calls):
            call = self.calls[step]
            arguments = dict(call.arguments)
            if session is not None:
                arguments["session_id"] = session
            item = {
                "type": "function_call",
                "id": f"fc_{secrets.token_hex(8)}",
                "name": call.name,
                "call_id": self.call_id(step),
                "arguments": json.dumps(arguments),
            }
        else:
            text = [{"type": "output_text", "text": DONE, "annotations": []}]
            item = {"type": "message", "role": "assistant", "id": f"msg_{response_id}"}
            item |= {"status": "completed", "content": text}
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        return [
            ("response.created", {"response": {"id": response_id}}),
            ("response.output_item.done", {"item": item}),
            ("response.completed", {"response": {"id": response_id, "usage": usage}}),
        ]

    def session(self, call: ToolCall) -> int | None:
        """The exec session ``call`` writes to, as the output of the call it names says
        (``Process running with session ID N``); -1, which Codex refuses, when that call
        opened none."""
        if call.session_of is None:
            return None
        output = self.outputs.get(self.call_id(call.session_of), "")
        found = re.search(r"session ID (\d+)", output)
        return int(found.group(1)) if found else -1


def _output_text(output: Any) -> str:
    """A tool output as text: Codex sends a string, or a list of content parts."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    return json.dumps(output)


class FakeResponses:
    """The server: ``start()`` binds 127.0.0.1 on a free port, ``close()`` stops it."""

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self.errors: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> FakeResponses:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def base_url(self) -> str:
        """What a model provider entry points Codex at."""
        return f"http://127.0.0.1:{self.port}/v1"

    def register(self, script: Script) -> str:
        """Serve ``script`` to the conversation that starts with the prompt returned."""
        token = f"script-{secrets.token_hex(8)}"
        self.scripts[token] = script
        return f"Do the task ({token})."


def _handler(fake: FakeResponses) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            named = TOKEN.search(raw.decode("utf-8", "replace"))
            script = fake.scripts.get(named.group(0)) if named else None
            if script is None or self.path != "/v1/responses":
                fake.errors.append(f"POST {self.path}: no script")
                self._plain(404)
                return
            try:
                events = script.answer(json.loads(raw))
            except ValueError as exc:
                fake.errors.append(f"{self.path}: {exc}")
                self._plain(400)
                return
            body = b"".join(
                f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()
                for name, data in events
            )
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._plain(404)  # models list, update checks: nothing here

        def _plain(self, code: int) -> None:
            self.send_response(code)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the script, not an access log."""

    return Handler
