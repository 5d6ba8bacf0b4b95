"""docs/security.md's nginx example in front of ``handoff-gate serve``, as written there.

The test takes the nginx configuration the document writes, points it at a self-signed
certificate made by ``openssl`` and at the served port, and runs Debian's nginx in a
temporary folder. Chromium then logs in through the proxy, opens the printed
``https`` address and approves: the TLS, the login and the websocket upgrade all pass.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import PLAN_BYTES, cli
from served import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Tab,
    fetch,
    free_port,
    need_chromium,
    served,
    until,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "security.md"
WALKTHROUGH = DOC.parent / "walkthrough.md"
USER, PASSWORD = "alice", "correct horse"


def _doc_block(language: str, holding: str) -> str:
    """The first ``language`` code block of docs/security.md that holds ``holding``."""
    text = DOC.read_text(encoding="utf-8")
    for block in re.findall(rf"```{re.escape(language)}\n(.*?)```", text, re.S):
        if holding in block:
            return str(block)
    raise AssertionError(f"docs/security.md has no {language} block with {holding}")


def _nginx() -> str:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if Path(nginx).exists():
        return nginx
    if os.environ.get("CI"):
        pytest.fail("CI needs nginx (make installs Debian's nginx-light)")
    pytest.skip("no nginx: apt-get install nginx-light")


def _openssl(*args: str) -> str:
    done = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """nginx on a free port in front of a free port for ``serve``: ``(public, served)``."""
    nginx = _nginx()
    public, backend = free_port(), free_port()
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
        "-keyout", str(key), "-out", str(cert),
    )  # fmt: skip
    users = tmp_path / "htpasswd"
    users.write_text(f"{USER}:{_openssl('passwd', '-apr1', PASSWORD).strip()}\n")
    written = _doc_block("sh", "proxy_pass")
    block = (
        written.split("<<'EOF'\n", 1)[1]
        .split("\nEOF\n", 1)[0]
        .replace("listen 443 ssl;", f"listen 127.0.0.1:{public} ssl;")
        .replace("/etc/ssl/certs/review.example.org.pem", str(cert))
        .replace("/etc/ssl/private/review.example.org.key", str(key))
        .replace("/etc/nginx/handoff-gate.htpasswd", str(users))
        .replace("127.0.0.1:8150", f"127.0.0.1:{backend}")
    )
    # Root's nginx runs its workers as nobody, who cannot enter pytest's 0700 folders.
    user = "user root root;\n" if os.geteuid() == 0 else ""
    temp = "".join(
        f"{kind}_temp_path {tmp_path / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"{user}pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\n"
        f"events {{}}\nhttp {{\naccess_log off;\n{temp}{block}}}\n"
    )
    process = subprocess.Popen(
        [nginx, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "nginx.out").open("wb"),
    )
    try:
        until(lambda: _listening(public) or process.poll() is not None, "nginx listening")
        assert process.poll() is None, (tmp_path / "nginx.out").read_text()
        yield public, backend
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def _listening(port: int) -> bool:
    return f":{port:04X} 00000000:0000 0A" in Path("/proc/net/tcp").read_text()


def test_the_documented_proxy_serves_the_page_over_tls_with_a_login(
    proxy: tuple[int, int], tmp_path: Path
) -> None:
    need_chromium()
    from playwright.sync_api import sync_playwright

    public, backend = proxy
    runs = tmp_path / "runs"
    done = cli("submit", str(runs / "job"), "--phase", "plan", "--schema", "plan/v1", "-",
               stdin=PLAN_BYTES)  # fmt: skip
    assert done.returncode == 0, done.stderr
    handoff = done.stdout.strip()
    line = _doc_block("sh manual", "handoff-gate serve").strip()
    assert line in WALKTHROUGH.read_text(encoding="utf-8"), "the walkthrough's step 2"
    command = line.split()
    assert command[:3] == ["handoff-gate", "serve", "runs/"]
    args = [*command[1:], "--port", str(backend)]
    args[1] = str(runs)
    args[args.index("--public-url") + 1] = f"https://127.0.0.1:{public}"
    local = f"http://127.0.0.1:{backend}"
    with served(args, tmp_path / "serve.log", local=local) as server:
        assert server.url.startswith(f"https://127.0.0.1:{public}/?token=")
        assert "Secure" in fetch(server, "/").headers["Set-Cookie"]
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                _approve_through(browser, server.url, runs, handoff, public)
            finally:
                browser.close()
    shown = cli("show", str(runs / "job"), handoff, "--json")
    assert '"reviewer": "alice"' in shown.stdout


def _status_without_login(url: str, public: int) -> int:
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", public, context=unverified, timeout=30)
    try:
        connection.request("GET", url.split(str(public), 1)[1])
        return connection.getresponse().status
    finally:
        connection.close()


def _approve_through(browser: Any, url: str, runs: Path, handoff: str, public: int) -> None:
    assert _status_without_login(url, public) == 401, "the proxy's login comes first"
    context = browser.new_context(
        ignore_https_errors=True,
        http_credentials={"username": USER, "password": PASSWORD},
        viewport={"width": 900, "height": 700},
    )
    tab = Tab(context.new_page())
    tab.page.goto(url)
    assert tab.page.url == f"https://127.0.0.1:{public}/"
    (cookie,) = context.cookies()
    assert cookie["secure"] and cookie["httpOnly"]
    tab.shows(handoff)
    tab.shows("APPROVABLE")
    tab.page.focus("#terminal textarea")
    mark = tab.mark()
    tab.press("a")
    tab.shows("Approve this handoff?", since=mark)
    tab.press("y")
    until(lambda: _approved(runs, handoff), "the approval on disk")
    context.close()


def _approved(runs: Path, handoff: str) -> bool:
    shown = cli("show", str(runs / "job"), handoff, "--json")
    return '"state": "approved"' in shown.stdout
