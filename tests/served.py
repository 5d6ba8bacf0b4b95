"""``handoff-gate serve`` as a user runs it, and Debian's Chromium driven by playwright.

``Served`` starts the real command in a subprocess on a free port and reads the address
it prints; ``descendants`` lists the processes it started, from ``/proc``, so a test can
see that a refused request started none and a stop left none. ``Tab`` is one browser
tab over the page; the terminal is drawn on a canvas, so what it shows is read from the
websocket's frames (the app's own output, escape sequences dropped).
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: Offline, quiet and unsandboxed (the tests run as root): playwright's own download of
#: a browser is not available, the distribution's is driven instead.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
GATE = [sys.executable, "-m", "handoff_gate"]
BOUND = 30.0
_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def until(condition: Callable[[], Any], what: str, bound: float = BOUND) -> Any:
    """Wait for ``condition`` to be truthy, at most ``bound`` seconds; return its value."""
    deadline = time.monotonic() + bound
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {bound:g} s: {what}")
        time.sleep(0.05)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, from ``/proc``'s children lists."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class Served:
    """A running ``handoff-gate serve``: its process, the printed address, its stderr."""

    def __init__(
        self, args: list[str], log: Path, env: dict[str, str] | None = None, local: str = ""
    ) -> None:
        """``local``: where the server listens, when it prints a ``--public-url``."""
        self.log = log
        self.process = subprocess.Popen(
            [*GATE, *args],
            stdout=subprocess.PIPE,
            stderr=log.open("wb"),
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line:
            self.process.wait(BOUND)
            raise AssertionError(f"serve printed no address: {log.read_text()}")
        self.url = line
        parts = urlsplit(line)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.local = local or self.base
        self.token = parts.query.removeprefix("token=")

    def apps(self) -> set[int]:
        """The app processes (``handoff-gate watch``) the server runs now."""
        return {
            pid for pid in descendants(self.process.pid) if b"watch" in _cmdline(pid) and alive(pid)
        }

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Signal the server and wait for it; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(BOUND)
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@contextmanager
def served(
    args: list[str], log: Path, env: dict[str, str] | None = None, local: str = ""
) -> Iterator[Served]:
    """The server for the block, stopped after it."""
    server = Served(args, log, env, local)
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()


def need_chromium() -> None:
    """Skip without the browser, except under CI, where that is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI needs {CHROMIUM} (make installs Debian's chromium package)")
    pytest.skip(f"no {CHROMIUM}: apt-get install chromium")


class Tab:
    """One browser tab on the served page, and the text its terminal was sent."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self._frames: list[bytes] = []
        page.on("websocket", self._watch)

    def _watch(self, websocket: Any) -> None:
        websocket.on("framereceived", self._frame)

    def _frame(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes):
            self._frames.append(payload)

    def mark(self) -> int:
        """Where the screen's text is now: ``shown(..., since=mark)`` looks only after it."""
        return len(self._frames)

    def text(self, since: int = 0) -> str:
        raw = b"".join(self._frames[since:]).decode("utf-8", "replace")
        return _ESCAPE.sub("", raw)

    def shows(self, words: str, since: int = 0, bound: float = BOUND) -> None:
        """Wait until the terminal has been sent ``words``."""
        deadline = time.monotonic() + bound
        while words not in self.text(since):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed {words!r}")
            self.page.wait_for_timeout(50)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)


class Fetched:
    """An HTTP answer: status, headers and body text."""

    def __init__(self, status: int, headers: dict[str, str], body: str) -> None:
        self.status = status
        self.headers = headers
        self.body = body


def fetch(
    server: Served, path: str, *, token: str | None = "", headers: dict[str, str] | None = None
) -> Fetched:
    """One GET on the server, redirects not followed. ``token``: ``""`` the server's,
    ``None`` none, else that text in the query."""
    given = server.token if token == "" else token
    if given is not None:
        path = f"{path}{'&' if '?' in path else '?'}token={quote(given)}"
    connection = http.client.HTTPConnection(urlsplit(server.local).netloc, timeout=BOUND)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return Fetched(
            response.status,
            dict(response.getheaders()),
            response.read().decode("utf-8", "replace"),
        )
    finally:
        connection.close()


def upgrade(
    server: Served, *, token: str | None = "", headers: dict[str, str] | None = None
) -> int:
    """The status a websocket upgrade of ``/ws`` gets (101: an app would start)."""
    asked = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        **(headers or {}),
    }
    return fetch(server, "/ws", token=token, headers=asked).status


def with_cookie(server: Served, path: str) -> Fetched:
    """A GET carrying the cookie the first visit sets, as a browser sends it after."""
    first = fetch(server, "/")
    assert first.status == 303, first.body
    cookie = first.headers["Set-Cookie"].split(";", 1)[0]
    return fetch(server, path, token=None, headers={"Cookie": cookie})
