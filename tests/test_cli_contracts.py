"""``contracts add|list|show``, ``submit --json-schema`` and ``schemas --run`` as a pipeline
and a reviewer use them, on both stores: separate processes whose environment names no
contract module, so everything a reviewer knows of a contract comes from the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli

from handoff_gate.gates.contracts.json_schema import schema_sha256
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.environment import STORE_ENV

DEX = Path(__file__).resolve().parent.parent / "sample_runs" / "dex-contracts"
BOUND = 60
RUN = "loop-1"


@dataclass(frozen=True)
class Side:
    """One store, seen from a process with nothing but where the runs are."""

    cwd: Path
    env: dict[str, str]

    def gate(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        encoded = stdin.encode() if stdin is not None else None
        return cli(*args, stdin=encoded, env=self.env, cwd=self.cwd)

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "handoff_gate.cli", *args],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def _bare_env() -> dict[str, str]:
    drop = ("HANDOFF_GATE_", "PG")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


@pytest.fixture(params=["fs", "pg"])
def side(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Side]:
    env = _bare_env()
    if request.param == "pg":
        url: str = request.getfixturevalue("pg_url")
        with psycopg.connect(url, autocommit=True) as conn:
            init_schema(conn, roles=False)
        env[STORE_ENV] = url
    yield Side(tmp_path, env)


def _schema(name: str) -> Path:
    return DEX / f"{name}.schema.json"


def _payload(name: str) -> Path:
    return DEX / "payloads" / f"{name}.json"


def test_a_contract_is_added_once_and_another_content_under_its_id_is_refused(
    side: Side,
) -> None:
    digest = schema_sha256(json.loads(_schema("verify").read_bytes()))
    first = side.gate("contracts", "add", RUN, "verify/v1", str(_schema("verify")))
    again = side.gate("contracts", "add", RUN, "verify/v1", str(_schema("verify")))
    assert (first.returncode, first.stdout) == (0, f"sha256 {digest}\n"), first.stderr
    assert (again.returncode, again.stdout) == (0, f"sha256 {digest}\n"), again.stderr
    other = schema_sha256(json.loads(_schema("manifest").read_bytes()))
    clash = side.gate("contracts", "add", RUN, "verify/v1", str(_schema("manifest")))
    assert clash.returncode == 2
    assert digest in clash.stderr and other in clash.stderr and "new version" in clash.stderr
    submitted = side.gate(
        "submit", RUN, "--phase", "verify", "--schema", "verify/v1",
        "--json-schema", str(_schema("manifest")), str(_payload("manifest-ok")),
    )  # fmt: skip
    assert submitted.returncode == 2 and other in submitted.stderr
    listed = side.gate("contracts", "list", RUN, "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert {k: row[k] for k in ("id", "sha256", "kind")} == {
        "id": "verify/v1",
        "sha256": digest,
        "kind": "json-schema",
    }
    shown = side.gate("contracts", "show", RUN, "verify/v1")
    assert json.loads(shown.stdout) == json.loads(_schema("verify").read_bytes())
    assert side.gate("contracts", "show", RUN, "nope/v1").returncode == 2


#: (name, the property's schema, what the one-line refusal says)
REFUSED = [
    (
        "remote-ref",
        {"$ref": "https://example.com/a.json"},
        "it refers to https://example.com/a.json, outside the document; nothing is fetched",
    ),
    ("invalid", {"type": "object", "required": "a"}, "not a valid JSON Schema at /properties/a"),
    ("missing-def", {"$ref": "#/$defs/Gone"}, "/$defs/Gone"),
]


@pytest.mark.parametrize(("name", "field", "says"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_schema_the_gate_cannot_use_is_refused_before_anything_is_stored(
    side: Side, name: str, field: dict[str, Any], says: str
) -> None:
    schema = {"type": "object", "properties": {"a": field}}
    path = side.cwd / "odd.schema.json"
    path.write_text(json.dumps(schema))
    added = side.gate("contracts", "add", RUN, "odd/v1", str(path))
    submitted = side.gate(
        "submit", RUN, "--phase", "odd", "--schema", "odd/v1", "--json-schema", str(path), "-",
        stdin='{"a": {}}',
    )  # fmt: skip
    for done in (added, submitted):
        assert done.returncode == 2
        assert says in done.stderr
        assert done.stderr.count("\n") == 1
    listed = side.gate("list", "--no-header", *([] if STORE_ENV in side.env else ["."]))
    assert listed.stdout == ""


CASES = [
    ("verify-ok", "approve", 0),
    ("manifest-ok", "approve", 0),
    ("gap-ok", "reject", 1),
    ("learnings-ok", "approve", 0),
]
SCHEMA_OF = {"verify": "verify", "manifest": "manifest", "gap": "gap_analysis"}


@pytest.mark.parametrize(("payload", "action", "exit_code"), CASES, ids=[c[0] for c in CASES])
def test_a_reviewer_with_no_contract_module_decides_and_the_waiter_gets_the_delivery(
    side: Side, tmp_path: Path, payload: str, action: str, exit_code: int
) -> None:
    name = payload.split("-")[0]
    schema = SCHEMA_OF.get(name, name)
    phase = name
    submitted = side.gate(
        "submit", RUN, "--phase", phase, "--schema", f"{schema}/v1",
        "--json-schema", str(_schema(schema)), str(_payload(payload)),
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    handoff = submitted.stdout.strip()
    waiter = side.start("wait", RUN, handoff, "--timeout", str(BOUND), "--out", "-")
    reviewer_home = tmp_path / "reviewer"
    reviewer_home.mkdir()
    reviewer = Side(side.cwd if STORE_ENV not in side.env else reviewer_home, side.env)
    shown = reviewer.gate("show", RUN, handoff, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["verdict"] in ("approvable", "approvable_with_warnings")
    reason = [] if action == "approve" else ["--reason", "replan", "--category", "other"]
    decided = reviewer.gate("decide", RUN, handoff, action, *reason)
    assert decided.returncode == 0, decided.stderr
    out, err = waiter.communicate(timeout=BOUND)
    assert waiter.returncode == exit_code, err
    if exit_code == 0:
        delivered = json.loads(out)
        given = json.loads(_payload(payload).read_bytes())
        assert set(delivered) == set(given)  # each field delivered, defaults filled in
        scalars = {k: v for k, v in given.items() if not isinstance(v, list | dict)}
        assert {k: delivered[k] for k in scalars} == scalars


def test_a_bad_payload_of_a_stored_contract_is_blocked_for_a_reviewer_too(side: Side) -> None:
    submitted = side.gate(
        "submit", RUN, "--phase", "verify", "--schema", "verify/v1",
        "--json-schema", str(_schema("verify")), str(_payload("verify-bad")),
    )  # fmt: skip
    handoff = submitted.stdout.strip()
    decided = side.gate("decide", RUN, handoff, "approve")
    assert decided.returncode == 1
    shown = json.loads(side.gate("show", RUN, handoff, "--json").stdout)
    assert shown["verdict"] == "blocked"
    assert "unknown_schema" not in json.dumps(shown)


def test_a_submit_naming_a_stored_id_without_the_file_uses_the_stored_contract(
    side: Side,
) -> None:
    assert side.gate("contracts", "add", RUN, "verify/v1", str(_schema("verify"))).returncode == 0
    submitted = side.gate(
        "submit", RUN, "--phase", "verify", "--schema", "verify/v1", str(_payload("verify-ok"))
    )
    assert submitted.returncode == 0, submitted.stderr
    checked = side.gate("show", RUN, submitted.stdout.strip(), "--json")
    assert json.loads(checked.stdout)["verdict"] == "approvable"


def test_schemas_with_a_run_lists_and_prints_the_stored_contracts(side: Side) -> None:
    side.gate("contracts", "add", RUN, "verify/v1", str(_schema("verify")))
    listed = side.gate("schemas", "--run", RUN)
    assert "verify/v1" in listed.stdout and "stored in the run" in listed.stdout
    printed = side.gate("schemas", "--run", RUN, "--json-schema", "verify/v1")
    assert json.loads(printed.stdout) == json.loads(_schema("verify").read_bytes())
    assert side.gate("schemas", "--json-schema", "verify/v1").returncode == 2


def test_check_text_says_what_each_field_is_for(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"ticket": {"type": "string", "description": "the ticket \x1b[31mto close"}},
    }
    path = tmp_path / "refund.schema.json"
    path.write_text(json.dumps(schema))
    payload = tmp_path / "refund.json"
    payload.write_text('{"ticket": "T-1"}')
    done = Side(tmp_path, _bare_env()).gate("check", str(payload), "--json-schema", str(path))
    assert done.returncode == 0, done.stderr
    (row,) = [line for line in done.stdout.splitlines() if line.strip().startswith("ticket")]
    assert "about: the ticket" in row and "to close" in row
    assert "\x1b" not in done.stdout


@pytest.mark.parametrize("tamper", ["edited", "removed"])
def test_a_stored_contract_edited_or_removed_blocks_its_handoffs(
    tmp_path: Path, tamper: str
) -> None:
    """The agent rewrites the run's copy of the contract to let anything through: the
    handoff names the digest it was made against, so it is blocked, never approved."""
    side = Side(tmp_path, _bare_env())
    submitted = side.gate(
        "submit", RUN, "--phase", "verify", "--schema", "verify/v1",
        "--json-schema", str(_schema("verify")), str(_payload("verify-bad")),
    )  # fmt: skip
    handoff = submitted.stdout.strip()
    (document,) = (tmp_path / RUN / "contracts").glob("*.json")
    document.chmod(0o644)
    if tamper == "edited":
        document.write_text('{"type": "object", "properties": {}, "additionalProperties": true}')
    else:
        document.unlink()
    shown = json.loads(side.gate("show", RUN, handoff, "--json").stdout)
    assert shown["verdict"] == "blocked"
    assert "unknown_schema" in json.dumps(shown["report"])
    decided = side.gate("decide", RUN, handoff, "approve")
    assert decided.returncode == 1 and "contract stored in the run" in decided.stderr
    assert side.gate("wait", RUN, handoff, "--timeout", "0").returncode == 3
