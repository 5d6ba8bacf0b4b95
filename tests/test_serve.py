"""``handoff-gate serve``'s lock and its usage errors, over plain HTTP.

Every route refuses a request without the token before a handler runs, so a refused
request never starts an app process: checked by listing the server's processes.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from cli_helpers import cli, python_stdout
from served import BOUND, Served, fetch, free_port, served, until, upgrade, with_cookie

from handoff_gate.integrations.web_access import SAFE_HEADERS, is_loopback

TOKEN = "t0ken-for-tests-0123456789-abcdefghijklmnop"
CREDENTIALS = "must not hold a user name or password"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("serve")
    (root / "runs").mkdir()
    with served(["serve", str(root / "runs"), "--port", "0"], root / "serve.log") as running:
        yield running


@pytest.mark.parametrize("path", ["/", "/static/js/textual.js", "/static/css/xterm.css"])
@pytest.mark.parametrize("token", [None, "wrong", "", "é" * 40], ids=["none", "wrong", "x", "é"])
def test_a_request_without_the_token_is_refused(
    server: Served, path: str, token: str | None
) -> None:
    answer = fetch(server, path, token=token if token != "" else "x")
    assert answer.status == 401
    assert "needs its token" in answer.body
    assert answer.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("token", [None, "wrong"])
def test_a_websocket_without_the_token_starts_no_app(server: Served, token: str | None) -> None:
    assert upgrade(server, token=token) == 401
    assert upgrade(server, token=None, headers={"Cookie": f"handoff_gate_x={server.token}"}) == 401
    assert server.apps() == set()


def test_a_websocket_from_another_site_is_refused_even_with_the_cookie(server: Served) -> None:
    assert upgrade(server, headers={"Origin": "http://evil.example"}) == 403
    assert server.apps() == set()


def test_the_token_is_swapped_for_a_strict_http_only_cookie(server: Served) -> None:
    first = fetch(server, "/?fontsize=20")
    assert first.status == 303
    assert first.headers["Location"] == "./?fontsize=20"
    cookie = first.headers["Set-Cookie"]
    assert server.token in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    assert first.headers["Referrer-Policy"] == "no-referrer"
    page = with_cookie(server, "/")
    assert page.status == 200
    assert server.token not in page.body
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert with_cookie(server, "/static/js/textual.js").status == 200


def test_a_host_other_machines_reach_needs_allow_remote(tmp_path: Path) -> None:
    done = cli("serve", str(tmp_path), "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "--allow-remote" in done.stderr


@pytest.mark.parametrize(
    ("text", "mode", "says"),
    [
        (TOKEN, 0o644, "open to other accounts"),
        ("short", 0o600, "shorter than 32"),
        (TOKEN + "/x", 0o600, "letters, digits"),
    ],
)
def test_a_weak_token_file_is_refused(tmp_path: Path, text: str, mode: int, says: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(text)
    token_file.chmod(mode)
    done = cli("serve", str(tmp_path), "--port", "0", "--token-file", str(token_file))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert says in done.stderr
    assert TOKEN not in done.stderr


def test_the_token_file_is_the_lock(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    args = ["serve", str(tmp_path), "--port", "0", "--token-file", str(token_file)]
    with served(args, tmp_path / "serve.log") as server:
        assert server.token == TOKEN
        assert fetch(server, "/").status == 303
        assert fetch(server, "/", token=TOKEN[:-1]).status == 401


def test_public_url_is_the_printed_base_and_makes_the_cookie_secure(tmp_path: Path) -> None:
    public = "https://review.example.org/gate"
    port = free_port()
    args = ["serve", str(tmp_path), "--port", str(port), "--public-url", public]
    with served(args, tmp_path / "serve.log", local=f"http://127.0.0.1:{port}") as server:
        assert server.url == f"{public}/?token={server.token}"
        assert "Secure" in fetch(server, "/").headers["Set-Cookie"]
        page = with_cookie(server, "/")
        assert "wss://review.example.org/gate/ws" in page.body
        assert "https://review.example.org/gate/static/js/textual.js" in page.body


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--public-url", "ftp://x"], "--public-url must be"),
        (["--public-url", "http://[::1"], "--public-url must be"),
        (["--public-url", "https://review.example:port/"], "--public-url must be"),
        (["--public-url", "https://alice:s3cret@review.example/"], CREDENTIALS),
        (["--public-url", "https://alice@review.example/"], CREDENTIALS),
        (["--public-url", "https://:s3cret@review.example/"], CREDENTIALS),
        (["--max-sessions", "0"], "must be 1 or more"),
        (["--idle-timeout", "0"], "more than 0"),
        (["--port", "70000"], "not a port"),
    ],
)
def test_bad_flags_are_one_line(tmp_path: Path, flags: list[str], says: str) -> None:
    done = cli("serve", str(tmp_path), *flags)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert says in done.stderr
    assert "s3cret" not in done.stderr and done.stdout == ""


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = cli("serve", str(tmp_path), "--port", port)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"handoff-gate serve: cannot listen on 127.0.0.1:{port}: " + (
        "Address already in use\n"
    )


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("localhost", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("gate.example", False)],
)  # fmt: skip
def test_only_loopback_hosts_need_no_allow_remote(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_server_loads_no_terminal_ui_of_its_own() -> None:
    """Each tab's app loads Textual; the server, one process for every tab, does not."""
    loaded = python_stdout(
        "import sys, handoff_gate.cli.commands.serve\n"
        "print(sorted(m for m in ('textual', 'handoff_gate.tui') if m in sys.modules))"
    )
    assert loaded.strip() == "[]"


def test_the_page_shows_the_reviewer_as_text_never_markup(tmp_path: Path) -> None:
    name = "<script>alert(1)</script>"
    args = ["serve", str(tmp_path), "--port", "0", "--reviewer", name]
    with served(args, tmp_path / "serve.log") as server:
        page = with_cookie(server, "/")
    assert page.status == 200
    assert name not in page.body
    assert "Deciding as <b>&lt;script&gt;alert(1)&lt;/script&gt;</b>" in page.body


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_token_file_that_is_not_a_regular_file_is_refused_not_waited_on(
    tmp_path: Path, kind: str
) -> None:
    """A FIFO nobody writes to would block the read for ever: it is refused at once."""
    token_file = tmp_path / "token"
    if kind == "fifo":
        os.mkfifo(token_file, 0o600)
    else:
        token_file.mkdir(mode=0o700)
    done = cli("serve", str(tmp_path), "--port", "0", "--token-file", str(token_file))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"handoff-gate serve: the token file {token_file} is not a regular file\n"


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/",
        "//evil.example",
        "/%2F%2Fevil.example",
        "/%2F%2Fevil.example/",
        "/a/%2F%2Fevil.example",
        "/%5C%5Cevil.example",
        "/%5C/evil.example",
        "/https:evil.example",
        "/javascript:alert(1)",
    ],
)
def test_the_token_swap_redirects_only_to_a_path_of_its_own(server: Served, path: str) -> None:
    answer = fetch(server, path)
    assert answer.status == 303
    location = answer.headers["Location"]
    assert location.startswith("./") and "//" not in location and "\\" not in location
    landed = urljoin(f"{server.base}{path}", location)
    assert urlsplit(landed).netloc == urlsplit(server.base).netloc
    assert server.token not in location


def _assert_safe(headers: dict[str, str]) -> None:
    for name, value in SAFE_HEADERS.items():
        assert headers.get(name) == value, name


def _request(server: Served, method: str, path: str, cookie: str) -> tuple[int, dict[str, str]]:
    connection = http.client.HTTPConnection(urlsplit(server.local).netloc, timeout=BOUND)
    try:
        connection.request(method, path, headers={"Cookie": cookie})
        response = connection.getresponse()
        response.read()
        return response.status, dict(response.getheaders())
    finally:
        connection.close()


def test_every_answer_carries_the_safe_headers_errors_included(server: Served) -> None:
    swap = fetch(server, "/")
    cookie = swap.headers["Set-Cookie"].split(";", 1)[0]
    answers = {
        "swap": (swap.status, swap.headers),
        "refused": (lambda a: (a.status, a.headers))(fetch(server, "/", token=None)),
        "page": _request(server, "GET", "/", cookie),
        "static": _request(server, "GET", "/static/js/textual.js", cookie),
        "missing": _request(server, "GET", "/no/such/page", cookie),
        "missing static": _request(server, "GET", "/static/nope.js", cookie),
        "wrong method": _request(server, "DELETE", "/", cookie),
    }
    assert {name: status for name, (status, _) in answers.items()} == {
        "swap": 303,
        "refused": 401,
        "page": 200,
        "static": 200,
        "missing": 404,
        "missing static": 404,
        "wrong method": 405,
    }
    for _, headers in answers.values():
        _assert_safe(headers)


@contextmanager
def _open_websocket(server: Served, cookie: str) -> Iterator[None]:
    """A tab's websocket held open (its app running) for the block."""
    host = urlsplit(server.local)
    with socket.create_connection((host.hostname, host.port), timeout=BOUND) as tab:
        tab.sendall(
            b"GET /ws HTTP/1.1\r\nHost: " + host.netloc.encode() + b"\r\n"
            b"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: " + cookie.encode()
            + b"\r\n\r\n"
        )  # fmt: skip
        assert tab.recv(12).startswith(b"HTTP/1.1 101")
        yield


def test_a_refusal_when_every_session_is_taken_carries_the_safe_headers(tmp_path: Path) -> None:
    args = ["serve", str(tmp_path), "--port", "0", "--max-sessions", "1"]
    with served(args, tmp_path / "serve.log") as server:
        cookie = fetch(server, "/").headers["Set-Cookie"].split(";", 1)[0]
        with _open_websocket(server, cookie):
            until(server.apps, "the tab's app")
            status, headers = _request(server, "GET", "/", cookie)
            assert status == 503
            _assert_safe(headers)
            assert upgrade(server, token=None, headers={"Cookie": cookie}) == 503


def test_an_apps_errors_go_to_the_servers_stderr_made_visible_never_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """textual-serve copies a tab's stderr to the process's stdout, which holds only the
    address; each tab's errors go to the stream the server hands it, escapes shown."""
    from textual_serve.download_manager import DownloadManager

    from handoff_gate.integrations.web_review import AppProcess

    async def ignore(data: object) -> None:
        return None

    async def nothing() -> None:
        return None

    async def session() -> None:
        said = "import sys; sys.stderr.write('boom \\x1b[2J in a quoted payload\\n')"
        app = AppProcess(
            [sys.executable, "-c", said], {}, BOUND, sys.stderr,
            write_bytes=ignore, write_str=ignore, close=nothing,
            download_manager=DownloadManager(),
        )  # fmt: skip
        await app.start(80, 24)
        await app.exited()
        await app.stop()

    asyncio.run(session())
    out, err = capsys.readouterr()
    assert out == ""
    assert "boom ⟨ESC⟩[2J in a quoted payload\n" in err


def test_a_tab_runs_watch_with_the_options_the_server_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each tab's ``watch`` parses back to what the server was given, paths absolute and
    the reviewer named; ``--notify-url`` stays the server's (it tells once, not per tab)."""
    from handoff_gate.cli.commands.serve import _app_command
    from handoff_gate.cli.main import build_parser

    monkeypatch.chdir(tmp_path)
    given = ["serve", "runs", "--show", "all", "--read-only", "--schemas", "extra.py"]
    server = build_parser("serve").parse_args([*given, "--notify-url", "json://localhost:9/"])
    argv = _app_command(server, "alice@review")
    assert argv[:4] == [sys.executable, "-m", "handoff_gate", "watch"]
    tab = build_parser("watch").parse_args(argv[3:])
    assert (tab.root, tab.reviewer, tab.show, tab.read_only, tab.schemas) == (
        str(tmp_path / "runs"), "alice@review", "all", True, "extra.py"
    )  # fmt: skip
    assert not tab.notify_url and (tab.key, tab.policy, tab.poll) == (None, None, False)


def test_an_app_gone_before_the_server_first_reads_it_is_stopped_without_an_error() -> None:
    """When a tab's app has exited before textual-serve's reader first runs, its run()
    cancels a stderr task that never started, and that cancellation comes out of stop():
    stop must still end the tab and return, not raise into the server's handler."""
    from textual_serve.download_manager import DownloadManager

    from handoff_gate.integrations.web_review import AppProcess

    class GoneFirst(AppProcess):
        async def _open_app_process(
            self, width: int = 80, height: int = 24
        ) -> asyncio.subprocess.Process:
            process = await super()._open_app_process(width, height)
            await process.wait()
            assert process.stdout is not None
            await process.stdout.read()  # at its end before run() first looks
            return process

    async def ignore(data: object) -> None:
        return None

    async def nothing() -> None:
        return None

    async def session() -> int | None:
        app = GoneFirst(
            [sys.executable, "-c", "pass"], {}, BOUND, sys.stderr,
            write_bytes=ignore, write_str=ignore, close=nothing,
            download_manager=DownloadManager(),
        )  # fmt: skip
        await app.start(80, 24)
        await app.stop()
        return app._process.returncode if app._process is not None else None

    assert asyncio.run(session()) == 0
