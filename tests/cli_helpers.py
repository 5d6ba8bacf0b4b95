"""Running the real ``handoff-gate`` command in subprocesses, shared by the CLI tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from handoff_gate.schemas import example_path
from handoff_gate.schemas.planning import Plan

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


def lenient_plan_schema() -> dict[str, Any]:
    """plan/v1's JSON Schema without its ``additionalProperties: false``: a contract
    that says nothing of other keys, so one that arrives is dropped (a warning), where
    the built-in plan/v1, which closes the object, blocks it."""
    schema: dict[str, Any] = Plan.model_json_schema()
    del schema["additionalProperties"]
    return schema


def submit_lenient(run: Path, payload: bytes) -> str:
    """A plan handoff against :func:`lenient_plan_schema`, stored in the run."""
    contract = run.parent / f"{run.name}-lenient-plan.schema.json"
    contract.write_text(json.dumps(lenient_plan_schema()))
    done = cli(
        "submit", str(run), "--phase", "plan", "--schema", "lenient_plan/v1",
        "--json-schema", str(contract), "-", stdin=payload,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def start_wait(run: Path, handoff_id: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*GATE, "wait", str(run), handoff_id, "--timeout", str(BOUND), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
