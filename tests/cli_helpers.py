"""Running the real ``handoff-gate`` command in subprocesses, shared by the CLI tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from handoff_gate.schemas import example_path

PLAN_BYTES = example_path("plan/v1").read_bytes()
BOUND = 60
GATE = [sys.executable, "-m", "handoff_gate.cli"]


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GATE, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )


def python_stdout(script: str) -> str:
    """What a fresh interpreter running ``script`` prints; it must exit 0 (its stderr
    is the failure message otherwise). For checks of what a process imports or sets."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=BOUND
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def submit(run: Path, payload: bytes = PLAN_BYTES, phase: str = "plan") -> str:
    done = cli("submit", str(run), "--phase", phase, "--schema", "plan/v1", "-", stdin=payload)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def start_wait(run: Path, handoff_id: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*GATE, "wait", str(run), handoff_id, "--timeout", str(BOUND), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
