"""``handoff-gate serve``'s lock and its usage errors, over plain HTTP.

Every route refuses a request without the token before a handler runs, so a refused
request never starts an app process: checked by listing the server's processes.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import cli, python_stdout
from served import Served, fetch, free_port, served, upgrade, with_cookie

from handoff_gate.integrations.web_access import is_loopback

TOKEN = "t0ken-for-tests-0123456789-abcdefghijklmnop"


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
