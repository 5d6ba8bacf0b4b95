"""Issue 42, pins by construction: no command loads a contract module outside the
policy's pins, whether the policy comes from ``--policy`` or ``HANDOFF_GATE_POLICY``.

The commands are found from the real parser (``cli.main.build_parser``), sub-commands
included, not from a list of option names: ``schemas`` has no ``--policy``, and a list of
"commands that take ``--policy``" could not see that it ran an edited pinned module
while ``list`` refused it. Each is run with the module edited to write a marker file the
moment it runs. Whichever commands load contracts (seen by a spy on the one function
that loads them, ``gates.setup.load_contracts``) must refuse in one line and exit non-zero;
no command may write the marker.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli, owns_process

from handoff_gate.cli.main import WRAPPING_COMMANDS, build_parser
from handoff_gate.gates import setup as gate_setup
from handoff_gate.gates.vocab.environment import Environment

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

#: A command that cannot run to an end in a test, and why that is safe to leave out.
NOT_RUN = {
    "demo": "blocks until interrupted; it loads only its own scratch workspace's "
    "contracts, with policy=None said explicitly",
}
#: Options without which a command stops before it would load anything.
EXTRA = {
    "submit": ["--phase", "note", "--schema", "note/v1"],
    "serve": ["--port", "0"],
    "watch": ["--read-only"],
    "init": ["--pipeline", "65534", "--reviewers", "65534"],
    "hook claude-code": ["--timeout", "30"],
    "hook codex": ["--timeout", "30"],
    "hook gemini": ["--timeout", "30"],
}
#: A tool-call event as a hook reads one on stdin (Gemini names its event otherwise).
HOOK_EVENT = {
    "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "ls"}, "tool_use_id": "call_1", "cwd": "/",
}  # fmt: skip
GEMINI_EVENT = {
    **HOOK_EVENT, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
}  # fmt: skip


def _leaves(parser: argparse.ArgumentParser) -> Iterator[tuple[list[str], argparse.ArgumentParser]]:
    """Every command the parser runs: the words naming it, and its own parser."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield [], parser
    for action in subs:
        for name, sub in action.choices.items():
            for words, leaf in _leaves(sub):
                yield [name, *words], leaf


LEAVES = {" ".join(words): leaf for words, leaf in _leaves(build_parser())}


def test_the_walk_finds_the_commands_and_the_tables_name_only_real_ones() -> None:
    assert {"schemas", "check", "contracts list", "hook codex", "hook install"} <= set(LEAVES)
    assert set(NOT_RUN) | set(EXTRA) <= set(LEAVES)


@pytest.fixture
def pinned(tmp_path: Path) -> dict[str, Path]:
    """A policy pinning a contract module, a run holding a handoff of it, then the module
    edited so that running it writes ``ran`` beside it."""
    trust = tmp_path / "trust"
    trust.mkdir()
    key = tmp_path / "alice"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (trust / "allowed_signers").write_text(f"alice {public}\n")
    module = trust / "notes.py"
    module.write_text(MODULE)
    policy = trust / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "note"\n'
        'approvers = ["alice"]\n\n[[contracts]]\nmodule = "notes.py"\n'
        f'sha256 = "{hashlib.sha256(module.read_bytes()).hexdigest()}"\n'
    )
    run = tmp_path / "run"
    made = cli(
        "submit", str(run), "--phase", "note", "--schema", "note/v1", "--schemas", str(module),
        "-", stdin=b'{"text": "hi"}',
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    schema = tmp_path / "note.schema.json"
    schema.write_text(json.dumps({"type": "object"}))
    module.write_text(MODULE + PAYLOAD)
    return {"policy": policy, "module": module, "run": run, "schema": schema, "tmp": tmp_path}


def _argv(name: str, leaf: argparse.ArgumentParser, at: dict[str, Path]) -> list[str]:
    """The words that run ``name`` against the run: each positional filled by what it
    names (a new one with no value here fails the test, so it is never skipped)."""
    run = str(at["run"])
    values = {
        "run_dir": str(at["tmp"] / "new-run") if name == "init" else run,
        "root": run,
        "handoff_id": "0001-note",
        "action": "approve",
        "payload": "-",
        "path": str(at["policy"]) if name == "policy" else f"{run}/handoffs/0001-note.json",
        "schema_id": "note/v1",
        "file": str(at["schema"]),
        "agent": "claude-code",
    }
    words = name.split()
    for action in leaf._actions:
        if action.option_strings or isinstance(action, argparse._SubParsersAction):
            continue
        assert action.dest in values, f"{name}: no value for {action.dest}"
        words.append(values[action.dest])
    words += EXTRA.get(name, [])
    if words[0] in WRAPPING_COMMANDS:
        words += ["--", sys.executable, "-c", "pass"]
    if name in ("hook install", "hook doctor"):
        words += ["--settings", str(at["tmp"] / "settings.json")]
    return words


def _takes(leaf: argparse.ArgumentParser, option: str) -> bool:
    return any(option in a.option_strings for a in leaf._actions)


def _environment(at: dict[str, Path]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANDOFF_GATE_")}
    return {
        **env,
        "HANDOFF_GATE_POLICY": str(at["policy"]),
        "HANDOFF_GATE_SCHEMAS": str(at["module"]),
    }


@pytest.mark.parametrize("on_the_line", [False, True], ids=["environment", "options"])
@pytest.mark.parametrize("name", sorted(set(LEAVES) - set(NOT_RUN)))
def test_no_command_runs_an_edited_pinned_module(
    pinned: dict[str, Path], name: str, on_the_line: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaf = LEAVES[name]
    words = _argv(name, leaf, pinned)
    if on_the_line:
        if not _takes(leaf, "--policy"):
            pytest.skip(f"{name} takes no --policy: the environment's is its one source")
        given = ["--policy", str(pinned["policy"])]
        if _takes(leaf, "--schemas"):
            given += ["--schemas", str(pinned["module"])]
        words[len(name.split()) :] = [*given, *words[len(name.split()) :]]
    loads: list[Any] = []
    real = gate_setup.load_contracts

    def spy(spec: str | None, *, policy: Any) -> Any:
        loads.append((spec, policy))
        return real(spec, policy=policy)

    monkeypatch.setattr(gate_setup, "load_contracts", spy)
    event = GEMINI_EVENT if name == "hook gemini" else HOOK_EVENT
    stdin = json.dumps(event).encode() if words[0] == "hook" else b'{"text": "x"}'
    done = cli(*words, stdin=stdin, env=_environment(pinned), cwd=pinned["tmp"])
    assert not (pinned["module"].with_name("ran")).exists(), f"{name} ran the edited module"
    named = Environment.read(_environment(pinned)).schemas
    loaded = any(spec is not None and named in spec for spec, _ in loads)
    child = owns_process(words)
    if loaded or child or _takes(leaf, "--schemas"):
        assert done.returncode != 0, (name, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1, (name, done.stderr)
        assert "nothing of it was run" in done.stderr, (name, done.stderr)
        assert all(policy is not None for _, policy in loads), f"{name} loaded without pins"
    assert not (pinned["run"] / "decisions" / "0001-note").exists()
