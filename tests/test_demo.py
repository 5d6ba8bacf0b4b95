"""``handoff-gate demo --no-tui``: starts a live pipeline, follows decisions, stops cleanly."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from handoff_gate.demo.runner import REPO, SAMPLES
from handoff_gate.demo.simulator import LIVE_RUN
from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import load_registry

BOUND = 60.0


def until(condition: Callable[[], bool], what: str, demo: subprocess.Popen[str]) -> None:
    """Wait for ``condition`` with a bound; polling a file system state, not timing anything.

    A demo that died fails at once, with what it printed, instead of running out the bound.
    """
    deadline = time.monotonic() + BOUND
    while not condition():
        if demo.poll() is not None:
            out, err = demo.communicate()
            pytest.fail(f"demo exited {demo.returncode} before {what}:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def start_demo(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "handoff_gate.cli", "demo", "--no-tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def handoff(workspace: Path, name: str) -> Path:
    return workspace / LIVE_RUN / "handoffs" / f"{name}.json"


def test_decision_unblocks_the_pipeline_and_sigint_stops_it(tmp_path: Path) -> None:
    before = tree_digest(SAMPLES)
    workspace = tmp_path / "ws"
    demo = start_demo("--workspace", str(workspace))
    try:
        until(lambda: handoff(workspace, "0001-plan").is_file(), "the first plan", demo)
        assert (workspace / "research-to-coder" / "handoffs" / "0001-brief.json").is_file()
        registry = load_registry(str(workspace / "lenient_contracts.py"))
        decide(workspace / LIVE_RUN, "0001-plan", "approve", reviewer="test", registry=registry)
        until(
            lambda: handoff(workspace, "0002-design").is_file(), "the design after approval", demo
        )
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0, err
    assert f"demo workspace: {workspace}" in out
    assert "pipeline stopped before it finished (Ctrl-C or SIGTERM)" in out
    assert "pipeline finished" not in out
    assert "simulator stopped (exit 130)" in out
    log = (workspace / "simulator.log").read_text()
    assert "0002-design: cancelled" in log
    assert "Warning" not in log and "Traceback" not in log, log
    assert tree_digest(SAMPLES) == before
    assert not (REPO / LIVE_RUN).exists()


def test_a_pipeline_decided_to_its_end_says_it_finished(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    demo = start_demo("--workspace", str(workspace))
    run = workspace / LIVE_RUN
    steps = [
        ("0001-plan", "approve"),
        ("0002-design", "approve"),
        ("0003-verify", "reject"),
        ("0004-verify", "approve"),
    ]
    try:
        for hid, action in steps:
            until(handoff(workspace, hid).is_file, hid, demo)
            registry = load_registry(str(workspace / "lenient_contracts.py"))
            reason = "the failure list contradicts passed" if action == "reject" else None
            decide(run, hid, action, reason=reason, reviewer="test", registry=registry)
        out, err = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0, err
    assert "pipeline finished: every phase approved" in out
    assert "pipeline stopped" not in out


def test_rejection_brings_a_revised_plan(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    demo = start_demo("--workspace", str(workspace))
    try:
        until(lambda: handoff(workspace, "0001-plan").is_file(), "the first plan", demo)
        decide(
            workspace / LIVE_RUN,
            "0001-plan",
            "reject",
            reason="Too broad: report first",
            reviewer="test",
            registry=load_registry(""),
        )
        until(lambda: handoff(workspace, "0002-plan").is_file(), "the re-plan", demo)
        assert (
            b"Reviewer asked: Too broad: report first"
            in handoff(workspace, "0002-plan").read_bytes()
        )
        demo.terminate()
        out, _ = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0
    assert f"kept at {workspace}" in out


def test_default_workspace_is_a_fresh_temp_dir_kept_with_keep(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    demo = start_demo("--keep", env=env)
    try:
        until(
            lambda: any(tmp_path.glob(f"handoff-gate-demo-*/{LIVE_RUN}/handoffs/*.json")),
            "the live run in a temp workspace",
            demo,
        )
        demo.terminate()
        out, _ = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
    (workspace,) = tmp_path.glob("handoff-gate-demo-*")
    assert f"demo workspace: {workspace}" in out


def test_headless_demo_prints_what_to_type_and_removes_its_workspace(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    demo = start_demo(env=env)
    try:
        assert demo.stdout is not None
        lines: list[str] = []
        while not any("decide" in line and "approve" in line for line in lines):
            line = demo.stdout.readline()
            assert line, f"demo ended before printing a decide command: {lines}"
            lines.append(line)
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0, err
    text = "".join(lines)
    assert "0001-plan is waiting for a decision" in text
    assert f"handoff-gate decide {tmp_path}" in text
    assert "0001-plan approve" in text
    assert "pipeline stopped before it finished" in out
    assert "is removed" in out
    assert list(tmp_path.glob("handoff-gate-demo-*")) == []


@pytest.mark.parametrize("where", ["repo", "non-empty"])
def test_refuses_a_workspace_it_must_not_write_into(tmp_path: Path, where: str) -> None:
    if where == "repo":
        target = REPO / "demo-workspace"
    else:
        target = tmp_path
        (tmp_path / "keep.txt").write_text("mine")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "handoff_gate.cli",
            "demo",
            "--no-tui",
            "--workspace",
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 2
    assert "handoff-gate demo:" in done.stderr
    assert not (REPO / "demo-workspace").exists()
    assert not (tmp_path / LIVE_RUN).exists()
