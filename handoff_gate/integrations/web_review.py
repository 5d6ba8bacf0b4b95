"""``handoff-gate serve``'s server: the ``watch`` app in a browser, one process a tab.

``textual-serve`` does the serving but has no lock and no bounds, so this extends it:
``web_access.Access`` guards every route and every answer carries the safe headers; at
most ``Limits.sessions`` app processes run at once (the next tab is refused, never
queued); an idle session is ended; and every way a session ends ends its process group.
Extending it means overriding methods it keeps private (``_make_app``,
``_open_app_process``, ``_build_environment``), so pyproject.toml bounds it to the minor
version these tests pass with.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import shlex
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import aiohttp_jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.integrations.web_access import Access, secure_headers

if TYPE_CHECKING:
    from asyncio.subprocess import Process
    from collections.abc import Callable

#: The page, this package's own: textual-serve's asks a font host for a stylesheet,
#: and the served page loads nothing from outside the server.
PAGE_DIR = Path(__file__).parent / "web_page"
PAGE = "review.html"
#: Run before textual.js (``web_page/scale.js`` says why).
SCALE_SCRIPT = PAGE_DIR / "scale.js"
#: The browser's terminal size is believed within these cells.
_MAX_CELLS = 1000


@dataclass(frozen=True)
class Limits:
    """How much the server lets browsers take: ``sessions`` app processes at once,
    ``idle_s`` seconds without input before one is ended, ``grace_s`` for an app to
    quit before its processes are killed."""

    sessions: int = 4
    idle_s: float = 900.0
    grace_s: float = 3.0


@dataclass(frozen=True)
class Identity:
    """Who the page says decides (the app's header says the same), and whether it may."""

    reviewer: str
    read_only: bool
    where: str


class AppProcess(AppService):
    """One browser session's app: its own process group, so it and anything it started
    (``ssh-keygen`` signing a decision) end together, and an end that always comes.

    Its stderr goes to ``errors``, escapes made visible (it may quote a payload), never
    to the server's stdout (textual-serve's choice), which holds the address alone."""

    def __init__(
        self, argv: list[str], env: dict[str, str], grace_s: float, errors: TextIO, **kwargs: Any
    ) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self._argv = argv
        self._env = env
        self._grace_s = grace_s
        self._errors = errors
        self._copying: asyncio.Task[None] | None = None
        self._ended = False

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self._env)
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """The app as an argument list (no shell to quote through) in a new session."""
        self._process = process = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width, height),
            start_new_session=True,
        )
        assert process.stdin is not None and process.stderr is not None
        self._stdin = process.stdin
        self._copying = asyncio.create_task(self._copy_errors(process.stderr))
        process.stderr = asyncio.StreamReader()  # what ``AppService.run`` reads: nothing
        process.stderr.feed_eof()
        return process

    async def _copy_errors(self, stderr: asyncio.StreamReader) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while chunk := await stderr.read(4096):
            self._errors.write(visible(decoder.decode(chunk)))
            self._errors.flush()

    async def exited(self) -> None:
        """Return when the app's process has exited."""
        if self._process is not None:
            await self._process.wait()

    async def stop(self) -> None:
        """Ask the app to quit, then make sure: its group is killed after the grace.
        Once only: a second call must not signal a process group id that may be reused."""
        if self._ended:
            return
        self._ended = True
        try:
            await asyncio.wait_for(super().stop(), self._grace_s)
        except TimeoutError:
            pass
        except asyncio.CancelledError:
            # textual-serve's run() cancels its stderr reader on the way out; when the app
            # exited before that task ever ran, the cancellation comes out of stop() here.
            # The process still has to be ended below; only this task's own cancel goes on.
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), self._grace_s)
        for signum in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signum)
            if process.returncode is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), self._grace_s)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._copying is not None:  # what the app said last, unless its group hangs on
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._copying, self._grace_s)


@dataclass(eq=False)
class Session:
    """A browser tab: its websocket and, once started, its app."""

    websocket: web.WebSocketResponse
    app: AppProcess | None = None


class ReviewServer(Server):
    """textual-serve's server with the lock, the bounds and the reviewer's page."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        *,
        access: Access,
        identity: Identity,
        limits: Limits,
        public_url: str | None,
        report: Callable[[str], None],
        errors: TextIO,
    ) -> None:
        super().__init__(shlex.join(argv), title="handoff-gate", templates_path=PAGE_DIR)
        self.argv = argv
        self.env = env
        self.access = access
        self.identity = identity
        self.limits = limits
        self.page_url = public_url
        self.report = report
        self.errors = errors
        self.sessions: set[Session] = set()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        aiohttp_jinja2.get_env(app).autoescape = True
        app.middlewares.insert(0, self.access.middleware)
        app.on_response_prepare.append(secure_headers)
        app.router.add_get("/page/scale.js", self.handle_scale_script)
        return app

    async def handle_scale_script(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(SCALE_SCRIPT, headers={"Content-Type": "text/javascript"})

    async def on_startup(self, app: web.Application) -> None:
        """Nothing to print: the command says where to open, with the token."""

    async def on_shutdown(self, app: web.Application) -> None:
        """The server is stopping: every tab is told and every app process ended, all at
        once (a tab whose browser went away must not hold up the others)."""
        sessions = list(self.sessions)
        await asyncio.gather(
            *(s.websocket.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")
              for s in sessions),
            *(s.app.stop() for s in sessions if s.app is not None),
        )  # fmt: skip

    def _refuse_when_full(self) -> None:
        if len(self.sessions) >= self.limits.sessions:
            raise web.HTTPServiceUnavailable(
                text=f"handoff-gate serve: all {self.limits.sessions} sessions are open; close "
                f"a tab showing this page, or wait for one idle for {self.limits.idle_s:g} s "
                "to end\n"
            )

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page naming the reviewer, or the refusal when every session is taken."""
        self._refuse_when_full()
        base = (self.page_url or f"{request.scheme}://{request.host}").rstrip("/")
        scheme, rest = base.split(":", 1)
        context = {
            "reviewer": self.identity.reviewer,
            "read_only": self.identity.read_only,
            "where": self.identity.where,
            "idle_s": f"{self.limits.idle_s:g}",
            "static_url": f"{base}/static/",
            "page_url": f"{base}/page/",
            "websocket_url": f"{'wss' if scheme == 'https' else 'ws'}:{rest}/ws",
        }
        return aiohttp_jinja2.render_template(PAGE, request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One app process for this tab, while the limit allows, until the tab goes."""
        self._refuse_when_full()
        session = Session(web.WebSocketResponse(heartbeat=15, timeout=self.limits.grace_s))
        self.sessions.add(session)  # counted before the first await: no race past the limit
        websocket = session.websocket
        why = "closed"
        try:
            await websocket.prepare(request)
            session.app = AppProcess(
                self.argv,
                self.env,
                self.limits.grace_s,
                self.errors,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
            )
            width, height = _cells(request.query.get("width"), request.query.get("height"))
            await session.app.start(width, height)
            self.report(f"session started (pid {session.app.pid}; {len(self.sessions)} open)")
            why = await self._relay(websocket, session.app)
        finally:
            self.sessions.discard(session)
            await websocket.close(code=WSCloseCode.GOING_AWAY, message=why.encode())
            if session.app is not None:
                await session.app.stop()
                self.report(f"session ended: {why} ({len(self.sessions)} open)")
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, app: AppProcess) -> str:
        """Pass the tab's input to the app until the tab closes, goes idle, misbehaves or
        its app exits (a crash must free the slot, not hold it until idle); returns why
        it ended. The app's output goes the other way in ``AppService.run``."""
        exited = asyncio.ensure_future(app.exited())
        idle = self.limits.idle_s
        try:
            while True:
                receive = asyncio.ensure_future(websocket.receive())
                done, _ = await asyncio.wait(
                    {receive, exited},
                    timeout=idle,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if receive not in done:
                    receive.cancel()
                    return "the app exited" if exited in done else f"idle for {idle:g} s"
                message = receive.result()
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                    return "closed"
                if message.type is not WSMsgType.TEXT:
                    return "not a text message"
                try:
                    await self._forward(websocket, app, json.loads(message.data))
                except (ValueError, TypeError, KeyError, IndexError):
                    return "a malformed message"
        finally:
            exited.cancel()

    async def _forward(self, websocket: web.WebSocketResponse, app: AppProcess, sent: Any) -> None:
        """One envelope from textual-serve's script: ``[kind, data]``."""
        if not isinstance(sent, list) or not sent or not isinstance(sent[0], str):
            raise ValueError("not an envelope")
        kind = sent[0]
        if kind == "stdin":
            if not isinstance(sent[1], str):
                raise TypeError("stdin is text")
            await app.send_bytes(sent[1].encode("utf-8", "replace"))
        elif kind == "resize":
            await app.set_terminal_size(*_cells(sent[1]["width"], sent[1]["height"]))
        elif kind == "ping":
            await websocket.send_json(["pong", str(sent[1])])
        elif kind == "blur":
            await app.blur()
        elif kind == "focus":
            await app.focus()


def _cells(width: object, height: object) -> tuple[int, int]:
    """A terminal size from the browser, or 80×24 when it is not one."""

    def cells(value: object, default: int) -> int:
        try:
            number = int(str(value))
        except ValueError:
            return default
        return number if 1 <= number <= _MAX_CELLS else default

    return cells(width, 80), cells(height, 24)


async def serve_until_stopped(
    server: ReviewServer, host: str, port: int, ready: Callable[[int], None]
) -> None:
    """Listen on ``host:port`` (0: any free port), call ``ready`` with the port, and
    serve until SIGINT or SIGTERM; on the way out every tab's app process is ended
    (``ReviewServer.on_shutdown``). ``OSError`` when the port cannot be had."""
    app = await server._make_app()
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=server.limits.grace_s * 3)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        ready(int(runner.addresses[0][1]))  # socket names: (host, port, ...)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()
