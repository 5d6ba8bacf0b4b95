"""``handoff-gate decide RUN ID approve --edit FILE``: the edit approved, refused with
its findings, or refused as input; ``show`` and ``wait`` name both digests. Each test
runs on the filesystem and on a real PostgreSQL server."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import PLAN_BYTES
from cli_helpers import cli as gate_cli

from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.environment import STORE_ENV

PLAN: dict[str, Any] = json.loads(PLAN_BYTES)
Done = subprocess.CompletedProcess[str]


@pytest.fixture(params=["fs", "pg"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """(the run as the store addresses it, the environment that names the store)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANDOFF_GATE_")}
    if request.param == "fs":
        return str(tmp_path / "run"), env
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    return "nightly", {**env, STORE_ENV: url}


def cli(*args: str, env: dict[str, str], stdin: bytes | None = None) -> Done:
    return gate_cli(*args, stdin=stdin, env=env)


def _submit(run: str, store: dict[str, str]) -> str:
    done = cli(
        "submit", run, "--phase", "plan", "--schema", "plan/v1", "-", env=store, stdin=PLAN_BYTES
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _write(tmp_path: Path, value: Any) -> tuple[Path, str]:
    path = tmp_path / "edited.json"
    data = json.dumps(value, indent=2).encode()
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def test_an_approved_edit_is_what_wait_delivers_and_show_names_both_digests(
    tmp_path: Path, where: tuple[str, dict[str, str]]
) -> None:
    run, store = where
    hid = _submit(run, store)
    shown = json.loads(cli("show", run, hid, "--json", env=store).stdout)
    original = shown["decision"] is None and shown["report"]["sha256"]
    path, digest = _write(tmp_path, {**PLAN, "recommended_profile": "library"})

    done = cli("decide", run, hid, "approve", "--edit", str(path), "--reviewer", "ana", env=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"{hid} approved as edited (sha256 {original} -> {digest}) by ana"
    )

    text = cli("show", run, hid, env=store)
    assert f"  edited by ana: sha256 {original} -> edited sha256 {digest}" in text.stdout
    as_json = json.loads(cli("show", run, hid, "--json", env=store).stdout)
    assert as_json["edited"] is True
    assert as_json["decision"]["sha256"] == original
    assert as_json["decision"]["edited_sha256"] == digest

    waited = cli("wait", run, hid, "--out", "-", "--timeout", "10", env=store)
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["recommended_profile"] == "library"
    assert f"delivered the edit approved by ana (sha256 {original} -> edited sha256 {digest})" in (
        waited.stderr
    )

    lines = cli("audit", run, env=store).stdout.splitlines()
    assert any(
        "decision_written" in line
        and f"edited by ana: sha256 {original} -> edited sha256 {digest}" in line
        for line in lines
    )
    events = [
        json.loads(line) for line in cli("audit", run, "--json", env=store).stdout.splitlines()
    ]
    written = [e for e in events if e.get("event") == "decision_written"]
    assert [(e["sha256"], e["edited_sha256"], e["edited_by"]) for e in written] == [
        (original, digest, "ana")
    ]


def test_an_edit_that_adds_a_secret_exits_1_with_its_findings(
    tmp_path: Path, where: tuple[str, dict[str, str]]
) -> None:
    run, store = where
    hid = _submit(run, store)
    path, _ = _write(tmp_path, {**PLAN, "risks": ["key AKIAIOSFODNN7EXAMPLE leaked"]})
    done = cli("decide", run, hid, "approve", "--edit", str(path), env=store)
    assert done.returncode == 1
    assert "refused: " in done.stderr and "not approvable (secret)" in done.stderr
    assert "  block  secret  risks[0]" in done.stderr
    assert "AKIAIOSFODNN7EXAMPLE" not in done.stderr
    assert json.loads(cli("show", run, hid, "--json", env=store).stdout)["state"] == "pending"


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"{not json", "is not valid JSON"), (b'{"a": 1, "a": 2}', "is not valid JSON")],
)
def test_an_edit_file_that_is_not_json_exits_2_and_writes_nothing(
    tmp_path: Path, where: tuple[str, dict[str, str]], content: bytes, says: str
) -> None:
    run, store = where
    hid = _submit(run, store)
    path = tmp_path / "edited.json"
    path.write_bytes(content)
    done = cli("decide", run, hid, "approve", "--edit", str(path), env=store)
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    missing = cli("decide", run, hid, "approve", "--edit", str(tmp_path / "gone.json"), env=store)
    assert missing.returncode == 2 and "cannot read the edited payload" in missing.stderr
    rejecting = cli("decide", run, hid, "reject", "--reason", "x", "--edit", str(path), env=store)
    assert rejecting.returncode == 2 and "--edit goes with approve" in rejecting.stderr
    assert json.loads(cli("show", run, hid, "--json", env=store).stdout)["state"] == "pending"
