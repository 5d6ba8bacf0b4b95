"""The review app never lets ssh-keygen ask for a passphrase on the terminal it owns.

Real keys, a real ``ssh-agent`` started (and stopped) by the test, the real command.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from trust_helpers import PASSPHRASE, Keys

from handoff_gate.gates.trust.ed25519 import verify
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.trust.sshsig import SigningError

MESSAGE = b"approve 0001-plan"
BOUND = 60


def _quiet_env() -> dict[str, str]:
    """No agent and no askpass: nothing but a terminal could supply a passphrase."""
    env = dict(os.environ)
    for name in ("SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"):
        env.pop(name, None)
    return env


@pytest.fixture
def agent(tmp_path: Path, keys: Keys, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An ssh-agent of this test's own holding the locked key; its socket path."""
    socket = tmp_path / "agent.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + BOUND
        while not socket.exists():
            assert proc.poll() is None, "ssh-agent exited"
            assert time.monotonic() < deadline, "ssh-agent never listened"
            time.sleep(0.02)
        askpass = tmp_path / "askpass"
        askpass.write_text(f"#!/bin/sh\necho '{PASSPHRASE}'\n")
        askpass.chmod(askpass.stat().st_mode | stat.S_IXUSR)
        env = _quiet_env() | {
            "SSH_AUTH_SOCK": str(socket),
            "SSH_ASKPASS": str(askpass),
            "SSH_ASKPASS_REQUIRE": "force",
        }
        added = subprocess.run(
            ["ssh-add", str(keys.locked)],
            env=env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=BOUND,
            check=False,
        )
        assert added.returncode == 0, added.stderr
        for name in ("SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket))
        yield str(socket)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=BOUND)


def test_a_locked_key_in_the_agent_signs_without_a_terminal(keys: Keys, agent: str) -> None:
    key = SigningKey(keys.locked, prompt=False)
    assert key.unattended_problem() is None
    assert verify(MESSAGE, key.sign(MESSAGE)) == key.public_key()


def test_a_locked_key_without_agent_fails_at_once_instead_of_asking(
    keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"):
        monkeypatch.delenv(name, raising=False)
    key = SigningKey(keys.locked, prompt=False)
    problem = key.unattended_problem()
    assert problem is not None and f"ssh-add {keys.locked}" in problem
    with pytest.raises(SigningError, match="ssh-keygen could not sign"):
        key.sign(MESSAGE)
    assert SigningKey(keys.alice, prompt=False).unattended_problem() is None


@pytest.mark.parametrize("command", ["watch", "serve"])
def test_the_review_apps_refuse_a_key_they_would_have_to_prompt_for_before_any_screen(
    tmp_path: Path, keys: Keys, command: str
) -> None:
    (tmp_path / "allowed_signers").write_text(f"alice {keys.public(keys.locked)}\n")
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\napprovers = ["alice"]\n'
    )
    (tmp_path / "runs").mkdir()
    app = [sys.executable, "-m", "handoff_gate.cli", command, str(tmp_path / "runs")]
    port = ["--port", "0"] if command == "serve" else []
    done = subprocess.run(
        [*app, *port, "--key", str(keys.locked), "--policy", str(policy)],
        capture_output=True,
        text=True,
        env=_quiet_env(),
        stdin=subprocess.DEVNULL,
        timeout=BOUND,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"handoff-gate {command}: ")
    assert f"run ssh-add {keys.locked} first" in done.stderr
    assert done.stdout == "", "no address printed: nothing was served"
