"""Issue 19 item 2, as the agent would attack it: a Python contract module is code that
`wait` and a reviewer's `decide --key` run, so under a policy it loads only if the
policy's `[[contracts]]` pins its bytes. Each edit below would make the module create a
file the moment it runs; the file never appearing proves nothing of it ran."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from cli_helpers import cli

from handoff_gate.gates.contracts.registry import RegistryError
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.trust.policy import PolicyError

MODULE = '''\
from pydantic import BaseModel, ConfigDict


class Note(BaseModel):
    """A note."""

    model_config = ConfigDict(extra="forbid")
    text: str


SCHEMAS = {"note/v1": Note}
'''
#: What an agent appends: it would run inside whoever loads the module.
PAYLOAD = 'import pathlib\npathlib.Path(__file__).with_name("ran").write_text("pwned")\n'


def _key(folder: Path, name: str) -> Path:
    path = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path], check=True
    )
    return path


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A trust folder with alice's key, a pinned contract module and a run holding a
    handoff of it: (policy, module, run, alice's key)."""
    trust = tmp_path / "trust"
    (trust / "contracts").mkdir(parents=True)
    alice = _key(tmp_path, "alice")
    public = " ".join(alice.with_suffix(".pub").read_text().split()[:2])
    (trust / "allowed_signers").write_text(f"alice {public}\n")
    module = trust / "contracts" / "notes.py"
    module.write_text(MODULE)
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    policy = trust / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "note"\n'
        'approvers = ["alice"]\n\n[[contracts]]\nmodule = "contracts/notes.py"\n'
        f'sha256 = "{digest}"\n'
    )
    run = tmp_path / "run"
    submitted = cli(
        "submit", str(run), "--phase", "note", "--schema", "note/v1", "--schemas", str(module),
        "-", stdin=b'{"text": "hi"}',
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    return policy, module, run, alice


def _pin(policy: Path) -> str:
    return cli("policy", str(policy)).stdout.split("sha256 ")[-1].strip()


def test_a_pinned_module_loads_under_its_policy(setup: tuple[Path, Path, Path, Path]) -> None:
    policy, module, run, alice = setup
    pin = _pin(policy)
    shown = cli("show", str(run), "0001-note", "--schemas", str(module), "--policy", str(policy))
    assert shown.returncode == 0, shown.stderr
    assert "approvable" in shown.stdout.lower()
    decided = cli(
        "decide", str(run), "0001-note", "approve", "--schemas", str(module),
        "--key", str(alice), "--policy", str(policy),
    )  # fmt: skip
    assert decided.returncode == 0, decided.stderr
    waited = cli(
        "wait", str(run), "0001-note", "--timeout", "5", "--schemas", str(module),
        "--policy", str(policy), "--policy-sha256", pin,
    )  # fmt: skip
    assert waited.returncode == 0, waited.stderr
    assert '"text": "hi"' in waited.stdout


EDITS = ["appended", "replaced", "symlinked"]


@pytest.mark.parametrize("edit", EDITS)
def test_an_edited_contract_module_under_a_pinned_policy_runs_no_code(
    setup: tuple[Path, Path, Path, Path], edit: str
) -> None:
    policy, module, run, alice = setup
    pin = _pin(policy)
    if edit == "appended":
        module.write_text(MODULE + PAYLOAD)
    elif edit == "replaced":
        module.unlink()
        module.write_text(PAYLOAD + MODULE)
    else:
        other = module.with_name("other.py")
        other.write_text(MODULE + PAYLOAD)
        module.unlink()
        module.symlink_to(other)
    marker = module.with_name("ran")
    for done in (
        cli(
            "wait", str(run), "0001-note", "--timeout", "0", "--schemas", str(module),
            "--policy", str(policy), "--policy-sha256", pin,
        ),
        cli(
            "decide", str(run), "0001-note", "approve", "--schemas", str(module),
            "--key", str(alice), "--policy", str(policy),
        ),
        cli("show", str(run), "0001-note", "--schemas", str(module), "--policy", str(policy)),
    ):  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1
        assert "nothing of it was run" in done.stderr or "not listed" in done.stderr
    assert not marker.exists(), "the edited module ran"
    assert not (run / "decisions" / "0001-note").exists()


def test_a_module_the_policy_does_not_list_runs_no_code(
    setup: tuple[Path, Path, Path, Path],
) -> None:
    policy, module, run, _ = setup
    stray = module.with_name("stray.py")
    stray.write_text(PAYLOAD + MODULE)
    waited = cli(
        "wait", str(run), "0001-note", "--timeout", "0", "--schemas", str(stray),
        "--policy", str(policy),
    )  # fmt: skip
    assert waited.returncode == 2
    assert "not listed in the policy's [[contracts]]" in waited.stderr
    named = cli("wait", str(run), "0001-note", "--timeout", "0", "--schemas", "json",
                "--policy", str(policy))  # fmt: skip
    assert named.returncode == 2 and "named by its .py file" in named.stderr
    assert not module.with_name("ran").exists()


def test_repinning_an_edited_module_changes_the_policys_digest(
    setup: tuple[Path, Path, Path, Path],
) -> None:
    """The agent that edits the module and its pin has edited the policy file: the pin
    a pipeline waits under (`--policy-sha256`) refuses it before any module loads."""
    policy, module, run, _ = setup
    pin = _pin(policy)
    module.write_text(MODULE + PAYLOAD)
    edited = hashlib.sha256(module.read_bytes()).hexdigest()
    text = policy.read_text()
    policy.write_text(text.replace(text.split('sha256 = "')[1][:64], edited))
    waited = cli(
        "wait", str(run), "0001-note", "--timeout", "0", "--schemas", str(module),
        "--policy", str(policy), "--policy-sha256", pin,
    )  # fmt: skip
    assert waited.returncode == 2
    assert "not the one pinned" in waited.stderr
    assert not module.with_name("ran").exists()


def test_the_gate_refuses_an_unpinned_module_under_a_policy(
    setup: tuple[Path, Path, Path, Path],
) -> None:
    policy, module, _, _ = setup
    module.write_text(MODULE + PAYLOAD)
    with pytest.raises(RegistryError, match="nothing of it was run"):
        Gate(contracts=str(module), policy=policy)
    assert not module.with_name("ran").exists()
    assert "note/v1" in Gate(contracts=str(module)).contracts  # no policy: as before


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('module = "x.txt"\nsha256 = "' + "a" * 64 + '"', "must be a .py path"),
        ('module = "x.py"\nsha256 = "abc"', "64 lowercase hex digits"),
        ('module = "x.py"\nsha256 = "' + "a" * 64 + '"\nextra = 1', "unknown key"),
    ],
)
def test_a_malformed_contracts_table_is_a_policy_error(
    setup: tuple[Path, Path, Path, Path], table: str, problem: str
) -> None:
    policy = setup[0]
    policy.write_text(policy.read_text() + f"\n[[contracts]]\n{table}\n")
    with pytest.raises(PolicyError, match=problem):
        Gate(policy=policy, contracts={})


def _every_command(
    run: Path, module: Path, policy: Path, alice: Path, pin: str
) -> dict[str, list[str]]:
    """Each command that takes ``--policy`` and loads contract modules, as a reviewer or
    the pipeline would run it against the run."""
    schemas = ["--schemas", str(module), "--policy", str(policy)]
    return {
        "wait": ["wait", str(run), "0001-note", "--timeout", "0", *schemas, "--policy-sha256", pin],
        "decide": ["decide", str(run), "0001-note", "approve", "--key", str(alice), *schemas],
        "decide --pending": [
            "decide",
            str(run),
            "--pending",
            "approve",
            "--key",
            str(alice),
            *schemas,
        ],
        "decide --ids -": [
            "decide",
            str(run),
            "--ids",
            "-",
            "approve",
            "--key",
            str(alice),
            *schemas,
        ],
        "withdraw": ["withdraw", str(run), "0001-note", *schemas],
        "show": ["show", str(run), "0001-note", *schemas],
        "list": ["list", str(run), *schemas],
        "stats": ["stats", str(run), *schemas],
        "replay": ["replay", str(run), *schemas],
        "check": ["check", str(run / "handoffs" / "0001-note.json"), *schemas],
        "submit": ["submit", str(run), "--phase", "note", "--schema", "note/v1", *schemas, "-"],
        "audit": ["audit", str(run), "--verify", *schemas],
        "watch": ["watch", str(run), "--read-only", *schemas],
        "serve": ["serve", str(run), "--read-only", "--port", "0", *schemas],
        "hook": ["hook", "codex", str(run), "--timeout", "30", *schemas],
        "mcp-proxy": ["mcp-proxy", str(run), *schemas, "--", sys.executable, "-c", "pass"],
    }


#: A Codex ``PreToolUse`` event, as ``hook`` reads it on stdin.
HOOK_EVENT = {
    "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "ls"}, "tool_use_id": "call_1",
}  # fmt: skip

COMMANDS = [
    "wait",
    "decide",
    "decide --pending",
    "decide --ids -",
    "withdraw",
    "show",
    "list",
    "stats",
    "replay",
    "check",
    "submit",
    "audit",
    "watch",
    "serve",
    "hook",
    "mcp-proxy",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_under_a_policy_refuses_an_edited_pinned_module_before_it_runs(
    setup: tuple[Path, Path, Path, Path], command: str
) -> None:
    """Issue 31: ``decide --pending``, ``decide --ids -`` and ``withdraw`` loaded modules
    without the policy's pins; each command is tried here, not a sample."""
    policy, module, run, alice = setup
    pin = _pin(policy)
    module.write_text(MODULE + PAYLOAD)
    args = _every_command(run, module, policy, alice, pin)[command]
    sha = hashlib.sha256((run / "handoffs" / "0001-note.json").read_bytes()).hexdigest()
    stdin = f"0001-note {sha}\n".encode() if "--ids" in args else b'{"text": "x"}'
    if command == "hook":
        stdin = json.dumps(HOOK_EVENT).encode()
    done = cli(*args, stdin=stdin)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert "nothing of it was run" in done.stderr or "not listed" in done.stderr
    assert not module.with_name("ran").exists(), f"{command} ran the edited module"
    assert not (run / "decisions" / "0001-note").exists()
    assert not (run / "withdrawals" / "0001-note").exists()


def test_the_pins_hold_on_a_database_store(
    setup: tuple[Path, Path, Path, Path], pg_url: str
) -> None:
    """The same commands over a database run: the pins are applied where the
    configuration is assembled, whatever the store."""
    policy, module, _, alice = setup
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    db = ["--store", pg_url]
    made = cli(*db, "submit", "job-1", "--phase", "note", "--schema", "note/v1",
               "--schemas", str(module), "-", stdin=b'{"text": "hi"}')  # fmt: skip
    assert made.returncode == 0, made.stderr
    pin = _pin(policy)
    module.write_text(MODULE + PAYLOAD)
    schemas = ["--schemas", str(module), "--policy", str(policy)]
    commands = [
        ["wait", "job-1", "0001-note", "--timeout", "0", *schemas, "--policy-sha256", pin],
        ["decide", "job-1", "0001-note", "approve", "--key", str(alice), *schemas],
        ["decide", "job-1", "--pending", "approve", "--key", str(alice), *schemas],
        ["withdraw", "job-1", "0001-note", *schemas],
        ["show", "job-1", "0001-note", *schemas],
        ["list", *schemas],
        ["stats", *schemas],
        ["replay", *schemas],
        ["audit", "job-1", "--verify", *schemas],
        ["submit", "job-1", "--phase", "note", "--schema", "note/v1", *schemas, "-"],
        ["hook", "codex", "job-1", "--timeout", "30", *schemas],
        ["watch", "--read-only", *schemas],
    ]
    for args in commands:
        stdin = json.dumps(HOOK_EVENT).encode() if args[0] == "hook" else b'{"text": "x"}'
        done = cli(*db, *args, stdin=stdin)
        assert done.returncode == 2, (args[0], done.stderr)
        assert done.stderr.count("\n") == 1, (args[0], done.stderr)
        assert not module.with_name("ran").exists(), f"{args[0]} ran the edited module"
    listed = cli(*db, "list", "--json")
    (row,) = json.loads(listed.stdout)
    assert row["reviewer"] is None and row["state"] != "withdrawn"  # nothing was written
