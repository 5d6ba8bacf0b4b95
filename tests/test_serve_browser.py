"""``handoff-gate serve`` in a real browser: Debian's Chromium driven by playwright.

One server per store (a folder of runs, a PostgreSQL database) serves the tests that
decide; each test submits its own handoff, opens a fresh tab with the printed address
and decides with the keys ``watch`` uses. The decision is then read back with
``handoff-gate show``, as any other reader of the run would see it.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import PLAN_BYTES, cli
from pg_server import PgServer
from served import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Served,
    Tab,
    alive,
    descendants,
    need_chromium,
    served,
    until,
    upgrade,
    with_cookie,
)
from signed_policy import signed_policy

from handoff_gate.gates.store.postgres_schema import init_schema

REVIEWER = "alice@review"
#: A phone-sized page: the walkthrough's recipe is for a phone.
VIEWPORT = {"width": 900, "height": 700}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


class Store:
    """Where the served runs live, and the CLI words that reach them."""

    def __init__(self, root: str | None, store_args: tuple[str, ...]) -> None:
        self.root = root
        self.store_args = store_args

    def run(self, name: str) -> str:
        return f"{self.root}/{name}" if self.root else name

    def submit(self, run: str) -> str:
        done = cli(
            *self.store_args, "submit", run, "--phase", "plan", "--schema", "plan/v1", "-",
            stdin=PLAN_BYTES,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def shown(self, run: str, handoff: str, *extra: str) -> dict[str, Any]:
        done = cli(*self.store_args, "show", run, handoff, "--json", *extra)
        assert done.returncode == 0, done.stderr
        shown: dict[str, Any] = json.loads(done.stdout)
        return shown

    def serve_args(self) -> list[str]:
        return [*self.store_args, "serve", *([self.root] if self.root else [])]


@pytest.fixture(scope="module", params=["fs", "pg"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Store:
    if request.param == "fs":
        return Store(str(tmp_path_factory.mktemp("runs")), ())
    pg: PgServer = request.getfixturevalue("pg_server")
    url = pg.url(pg.create_database())
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    return Store(None, ("--store", url))


@pytest.fixture(scope="module")
def server(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with served([*store.serve_args(), "--port", "0", "--reviewer", REVIEWER], log) as running:
        yield running


def open_tab(browser: Any, url: str) -> Tab:
    tab = Tab(browser.new_page(viewport=VIEWPORT))
    tab.page.goto(url)
    return tab


def ready(tab: Tab, handoff: str) -> None:
    """The handoff is listed and inspected (``APPROVABLE``), and the terminal has focus."""
    tab.shows(handoff)
    tab.shows("APPROVABLE")
    tab.page.focus("#terminal textarea")


def test_the_page_opens_with_the_token_names_the_reviewer_and_approves_as_him(
    browser: Any, store: Store, server: Served
) -> None:
    run = store.run("approve")
    handoff = store.submit(run)
    tab = open_tab(browser, server.url)
    try:
        assert tab.page.url == f"{server.base}/", "the token stays in the address bar"
        (cookie,) = tab.page.context.cookies()
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert cookie["value"] == server.token
        assert REVIEWER in tab.page.inner_text("#reviewer")
        assert tab.page.title() == f"handoff-gate · {REVIEWER}"
        ready(tab, handoff)
        mark = tab.mark()
        tab.press("a")
        tab.shows("Approve this handoff?", since=mark)
        tab.press("y")
        shown = until(lambda: _decided(store, run, handoff), "the approval on disk")
    finally:
        tab.page.close()
    assert shown["state"] == "approved"
    assert shown["reviewer"] == REVIEWER


def test_a_phone_sees_the_whole_screen_and_approves(
    browser: Any, store: Store, server: Served
) -> None:
    """A phone's screen has 2-3 device pixels to a CSS pixel; the terminal must still
    be drawn at the size it is shown, not that many times larger and cut off."""
    run = store.run("phone")
    handoff = store.submit(run)
    phone = browser.new_context(
        viewport={"width": 412, "height": 915}, device_scale_factor=3, is_mobile=True,
        has_touch=True,
    )  # fmt: skip
    tab = Tab(phone.new_page())
    try:
        tab.page.goto(server.url)
        # Upright, one pane at a time: the list, then the handoff in its place.
        tab.shows(handoff)
        tab.page.focus("#terminal textarea")
        # xterm's canvas renderer draws glyphs devicePixelRatio times too large here
        # (textual-serve's own page shows a third of the screen): the page pins it at 1.
        assert tab.page.evaluate("window.devicePixelRatio") == 1
        mark = tab.mark()
        tab.press("a")  # on the list, a opens the handoff first: read, then approved
        tab.shows("APPROVABLE", since=mark)
        mark = tab.mark()
        tab.press("a")
        tab.shows("Approve this handoff?", since=mark)
        tab.press("y")
        shown = until(lambda: _decided(store, run, handoff), "the approval on disk")
    finally:
        phone.close()
    assert shown["state"] == "approved"
    assert shown["reviewer"] == REVIEWER


def test_r_with_a_reason_rejects_as_the_serving_reviewer(
    browser: Any, store: Store, server: Served
) -> None:
    run = store.run("reject")
    handoff = store.submit(run)
    tab = open_tab(browser, server.url)
    try:
        ready(tab, handoff)
        mark = tab.mark()
        tab.press("r")
        tab.shows("Reason (required)", since=mark)
        tab.page.keyboard.type("the budget is missing")
        tab.press("Enter")
        shown = until(lambda: _decided(store, run, handoff), "the rejection on disk")
    finally:
        tab.page.close()
    assert shown["state"] == "rejected"
    assert shown["reviewer"] == REVIEWER
    assert shown["reason"] == "the budget is missing"


def test_with_a_key_the_browser_approval_is_signed_as_the_keys_approver(
    browser: Any, tmp_path: Path
) -> None:
    trust = signed_policy(tmp_path / "trust")
    store = Store(str(tmp_path / "runs"), ())
    run = store.run("job")
    handoff = store.submit(run)
    args = [*store.serve_args(), "--port", "0", "--key", str(trust.alice)]
    args += ["--policy", str(trust.policy)]
    with served(args, tmp_path / "serve.log") as server:
        tab = open_tab(browser, server.url)
        try:
            assert "Deciding as alice (key)" in tab.page.inner_text("#reviewer")
            ready(tab, handoff)
            mark = tab.mark()
            tab.press("a")
            tab.shows("Approve this handoff?", since=mark)
            tab.press("y")
            policy = ("--policy", str(trust.policy))
            shown = until(lambda: _decided(store, run, handoff, *policy), "the signed approval")
        finally:
            tab.page.close()
    assert shown["state"] == "approved"
    assert shown["reviewer"] == "alice"
    assert shown["signature"]


def test_read_only_serves_no_deciding_key(browser: Any, tmp_path: Path) -> None:
    store = Store(str(tmp_path / "runs"), ())
    run = store.run("job")
    handoff = store.submit(run)
    args = [*store.serve_args(), "--port", "0", "--reviewer", REVIEWER, "--read-only"]
    with served(args, tmp_path / "serve.log") as server:
        tab = open_tab(browser, server.url)
        try:
            assert "read-only" in tab.page.inner_text("#reviewer")
            tab.shows(handoff)
            tab.page.focus("#terminal textarea")
            tab.shows("read-only")
            mark = tab.mark()
            tab.press("a", "y", "r")
            tab.page.keyboard.type("no")
            tab.press("Enter")
            tab.shows("Read-only", since=mark)
            assert "Approve this handoff?" not in tab.text(since=mark)
            assert "Reason (required)" not in tab.text(since=mark)
        finally:
            tab.page.close()
    assert store.shown(run, handoff)["state"] == "pending"


def _decided(store: Store, run: str, handoff: str, *extra: str) -> dict[str, Any] | None:
    shown = store.shown(run, handoff, *extra)
    return None if shown["state"] == "pending" else shown


def test_the_session_limit_refuses_the_next_tab_and_a_closed_tab_ends_its_app(
    browser: Any, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    handoff = Store(str(runs), ()).submit(str(runs / "job"))
    args = ["serve", str(runs), "--port", "0", "--max-sessions", "1"]
    with served(args, tmp_path / "serve.log") as server:
        tab = open_tab(browser, server.url)
        tab.shows(handoff)
        (app,) = until(server.apps, "the first tab's app")
        page = with_cookie(server, "/")
        assert page.status == 503
        assert "all 1 sessions are open" in page.body
        assert upgrade(server) == 503
        second = open_tab(browser, server.url)
        assert "all 1 sessions are open" in second.page.inner_text("body")
        second.page.close()
        assert server.apps() == {app}, "the refused tab started nothing"
        tab.page.close()
        until(lambda: not alive(app), "the closed tab's app ended")
        assert server.apps() == set()
        assert with_cookie(server, "/").status == 200


def test_an_app_that_dies_frees_its_session_and_the_tab_says_so(
    browser: Any, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    handoff = Store(str(runs), ()).submit(str(runs / "job"))
    args = ["serve", str(runs), "--port", "0", "--max-sessions", "1"]
    with served(args, tmp_path / "serve.log") as server:
        tab = open_tab(browser, server.url)
        try:
            tab.shows(handoff)
            (app,) = until(server.apps, "the tab's app")
            os.kill(app, signal.SIGKILL)
            tab.page.wait_for_selector("body.-closed #ended", state="visible")
            until(lambda: with_cookie(server, "/").status == 200, "the session's slot freed")
        finally:
            tab.page.close()
    assert "session ended: the app exited" in (tmp_path / "serve.log").read_text()


def test_an_idle_tab_is_ended(browser: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    handoff = Store(str(runs), ()).submit(str(runs / "job"))
    args = ["serve", str(runs), "--port", "0", "--idle-timeout", "2"]
    with served(args, tmp_path / "serve.log") as server:
        tab = open_tab(browser, server.url)
        try:
            tab.shows(handoff)
            (app,) = until(server.apps, "the tab's app")
            until(lambda: not alive(app), "the idle tab's app ended")
            tab.page.wait_for_selector("body.-closed #ended", state="visible")
        finally:
            tab.page.close()
    assert "session ended: idle for 2 s" in (tmp_path / "serve.log").read_text()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stopping_the_server_leaves_no_process(
    browser: Any, tmp_path: Path, signum: signal.Signals
) -> None:
    runs = tmp_path / "runs"
    handoff = Store(str(runs), ()).submit(str(runs / "job"))
    with served(["serve", str(runs), "--port", "0"], tmp_path / "serve.log") as server:
        tabs = [open_tab(browser, server.url) for _ in range(2)]
        for tab in tabs:
            tab.shows(handoff)
        until(lambda: len(server.apps()) == 2, "two apps")
        started = descendants(server.process.pid)
        assert server.stop(signum) == 0
        for tab in tabs:
            tab.page.close()
    left = {pid for pid in started if alive(pid)}
    assert left == set(), f"left running: {left}"
