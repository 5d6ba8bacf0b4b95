"""``serve --notify-url``: the walkthrough's step 3, with a JSON webhook of the test's own
in place of ntfy. One announcer for the server (not one per tab) tells of handoffs that
wait, with the public link and never the token or payload text; an endpoint that is down
is a line on the server's stderr, and the server goes on serving."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import PLAN_BYTES, cli
from notify_endpoint import Endpoint, refused_port
from pg_server import PgServer
from served import fetch, served, until

from handoff_gate.gates.store.postgres_schema import init_schema

WALKTHROUGH = Path(__file__).parents[1] / "docs" / "walkthrough.md"
MARKER = "PAYLOAD-MARKER-serve-93ab"


def step_three() -> list[str]:
    """The walkthrough's ``serve … --notify-url`` line, as words."""
    line = next(
        line
        for line in WALKTHROUGH.read_text(encoding="utf-8").splitlines()
        if line.startswith("handoff-gate serve") and "--notify-url" in line
    )
    return shlex.split(line)[1:]


class Store:
    """The runs' store and the CLI words that reach it."""

    def __init__(self, root: Path | None, store_args: tuple[str, ...]) -> None:
        self.root, self.store_args = root, store_args

    def serve(self, notify_url: str) -> list[str]:
        """Step 3's line over this store, notifying ``notify_url``, on any free port."""
        words = step_three()
        words[words.index("--notify-url") + 1] = notify_url
        runs = words.index("runs/")
        if self.root is None:
            words[runs : runs + 1] = []
        else:
            words[runs] = str(self.root)
        return [*self.store_args, *words, "--port", "0"]

    def submit(self, run: str) -> str:
        plan = json.loads(PLAN_BYTES)
        plan["problem_statement"] += f" {MARKER}"
        done = cli(
            *self.store_args, "submit", str(self.root / run) if self.root else run,
            "--phase", "plan", "--schema", "plan/v1", "-", stdin=json.dumps(plan).encode(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@pytest.fixture(params=["fs", "pg"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "fs":
        (tmp_path / "runs").mkdir()
        return Store(tmp_path / "runs", ())
    pg: PgServer = request.getfixturevalue("pg_server")
    url = pg.url(pg.create_database())
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    return Store(None, ("--store", url))


def test_step_three_tells_the_phone_with_the_link_and_nothing_of_the_payload(
    store: Store, endpoint: Endpoint, tmp_path: Path
) -> None:
    with served(store.serve(endpoint.url), tmp_path / "serve.log") as server:
        assert server.url.startswith("https://review.example.org/?token=")
        ids = [store.submit("web") for _ in range(3)]
        notes: list[dict[str, Any]] = []
        while not all(any(f" {i}: " in n["message"] for n in notes) for i in ids):
            notes.append(endpoint.next())
        assert server.apps() == set(), "the announcer is the server's, no tab was opened"
    assert len(notes) <= 2
    said = b"".join(endpoint.raw)
    assert MARKER.encode() not in said and server.token.encode() not in said
    assert all("Review: https://review.example.org" in n["message"] for n in notes)
    if len(notes) == 1:
        assert notes[0]["title"] == f"3 new handoffs in web: {', '.join(ids)}"


def test_an_endpoint_that_is_down_is_a_line_and_the_server_serves_on(
    store: Store, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    down = f"json://127.0.0.1:{refused_port()}/"
    local = "http://127.0.0.1"
    with served(store.serve(down), log) as server:
        store.submit("web")
        until(lambda: "notification" in log.read_text(), "a warning on stderr")
        port = next(
            word.rsplit(":", 1)[1].rstrip(";")
            for word in log.read_text().split()
            if word.startswith("127.0.0.1:")
        )
        server.local = f"{local}:{port}"
        assert fetch(server, "/").status == 303, "still serving, the token still opens it"
    warned = [line for line in log.read_text().splitlines() if "notification" in line]
    assert warned[0].startswith("handoff-gate serve: ")
