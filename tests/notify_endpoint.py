"""A real JSON webhook for the notification tests: an HTTP server on 127.0.0.1 that
records every notification Apprise's ``json://`` posts to it, and addresses that refuse
or never answer, for the failures."""

from __future__ import annotations

import json
import queue
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: How long a test waits for a notification it expects before it fails.
BOUND = 30.0


class Endpoint:
    """``json://127.0.0.1:PORT/``: each POST's JSON body, as received, in ``received``."""

    def __init__(self) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.raw: list[bytes] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                endpoint.raw.append(body)
                endpoint.received.put(json.loads(body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        # serve_forever looks for shutdown() between polls: at its default 0.5 s, closing
        # the endpoint cost every test that used one half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"json://127.0.0.1:{self.port}/"

    def next(self) -> dict[str, Any]:
        """The next notification; the test fails if none comes within ``BOUND``."""
        try:
            return self.received.get(timeout=BOUND)
        except queue.Empty:
            raise AssertionError("no notification arrived") from None

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def refused_port() -> int:
    """A local port nothing listens on (bound, then released): a connection is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class Silent:
    """A local port that accepts connections and never answers: a request times out."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port: int = self._sock.getsockname()[1]

    def close(self) -> None:
        self._sock.close()
