"""Both integrator examples run to completion against a scripted reviewer."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from handoff_gate.gates.api import decide, read_decision
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import list_handoffs
from handoff_gate.gates.vocab.actions import Action

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BIN = Path(sys.executable).parent
BOUND = 60.0
PHASES = ["0001-research", "0002-plan", "0003-design"]


class Reviewer(threading.Thread):
    """Decides each handoff as soon as it appears: approve, or reject the one named."""

    def __init__(
        self,
        run_dir: Path,
        reject: str | None = None,
        reviewer: str = "script",
        reason: str = "scope too wide",
    ) -> None:
        super().__init__(daemon=True)
        self.run_dir = run_dir
        self.reject = reject
        self.reviewer = reviewer
        self.reason = reason
        self.done = threading.Event()
        self.decided: list[str] = []

    def run(self) -> None:
        registry = load_registry("")
        deadline = time.monotonic() + BOUND
        while not self.done.is_set() and time.monotonic() < deadline:
            for ref in list_handoffs(self.run_dir):
                if ref.id in self.decided:
                    continue
                if ref.id == self.reject:
                    decide(
                        self.run_dir,
                        ref.id,
                        Action.REJECT,
                        reason=self.reason,
                        reviewer=self.reviewer,
                        registry=registry,
                    )
                else:
                    decide(
                        self.run_dir, ref.id, Action.APPROVE, reviewer="script", registry=registry
                    )
                self.decided.append(ref.id)
            self.done.wait(0.05)


def run_example(
    command: list[str],
    run_dir: Path,
    reject: str | None = None,
    env: dict[str, str] | None = None,
    reviewer: Reviewer | None = None,
) -> tuple[subprocess.CompletedProcess[str], Reviewer]:
    reviewer = reviewer or Reviewer(run_dir, reject)
    reviewer.start()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BOUND, env=env)
    finally:
        reviewer.done.set()
        reviewer.join(BOUND)
    return done, reviewer


def python_example(run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, str(EXAMPLES / "pipeline.py"), str(run_dir), *extra]


def shell_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_python_pipeline_runs_every_phase_on_approval(tmp_path: Path) -> None:
    done, reviewer = run_example(python_example(tmp_path), tmp_path)
    assert done.returncode == 0, done.stderr
    assert reviewer.decided == PHASES
    assert "pipeline finished" in done.stdout
    assert "builder receives ['dependencies', 'entry_point', 'files', 'run_command']" in done.stdout


def test_python_pipeline_retries_a_rejected_phase_with_the_reason(tmp_path: Path) -> None:
    done, reviewer = run_example(python_example(tmp_path), tmp_path, reject="0002-plan")
    assert done.returncode == 0, done.stderr
    assert reviewer.decided == ["0001-research", "0002-plan", "0003-plan", "0004-design"]
    assert "retrying plan" in done.stdout
    retry = (tmp_path / "handoffs" / "0003-plan.json").read_text()
    assert "Reviewer asked: scope too wide" in json.loads(retry)["raw"]


def test_python_pipeline_stops_on_rejection_when_retries_are_used_up(tmp_path: Path) -> None:
    command = python_example(tmp_path, "--retries", "0")
    done, _ = run_example(command, tmp_path, reject="0002-plan")
    assert done.returncode == 1
    assert "scope too wide" in done.stderr
    assert [ref.id for ref in list_handoffs(tmp_path)] == PHASES[:2]


def test_python_pipeline_ctrl_c_exits_130_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        python_example(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert "0001-research: waiting" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=BOUND)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert "interrupted" in err
    assert read_decision(tmp_path, "0001-research") is None


def test_python_pipeline_timeout_never_approves(tmp_path: Path) -> None:
    done = subprocess.run(
        python_example(tmp_path, "--timeout", "0.2"), capture_output=True, text=True, timeout=BOUND
    )
    assert done.returncode == 3
    assert read_decision(tmp_path, "0001-research") is None
    assert [ref.id for ref in list_handoffs(tmp_path)] == PHASES[:1]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_pipeline_runs_every_phase_on_approval(tmp_path: Path) -> None:
    command = ["bash", str(EXAMPLES / "pipeline.sh"), str(tmp_path)]
    done, reviewer = run_example(command, tmp_path, env=shell_env())
    assert done.returncode == 0, done.stderr
    assert reviewer.decided == PHASES
    assert "pipeline finished" in done.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_pipeline_stops_on_rejection(tmp_path: Path) -> None:
    command = ["bash", str(EXAMPLES / "pipeline.sh"), str(tmp_path)]
    done, _ = run_example(command, tmp_path, reject="0001-research", env=shell_env())
    assert done.returncode == 1
    assert "scope too wide" in done.stderr
    assert [ref.id for ref in list_handoffs(tmp_path)] == PHASES[:1]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_pipeline_revises_a_rejected_phase_with_the_reason(tmp_path: Path) -> None:
    """REVISE gets the phase and the reviewer's reason; its output is submitted again."""
    revise = tmp_path / "revise.sh"
    revise.write_text(
        "#!/bin/sh\n"
        f'sed "s/Move the/Move (reviewer: $HANDOFF_GATE_REASON) the/" {EXAMPLES}/replies/$1.json\n'
    )
    revise.chmod(0o755)
    run_dir = tmp_path / "run"
    command = ["bash", str(EXAMPLES / "pipeline.sh"), str(run_dir)]
    env = {**shell_env(), "REVISE": str(revise)}
    done, reviewer = run_example(command, run_dir, reject="0002-plan", env=env)
    assert done.returncode == 0, done.stderr
    assert reviewer.decided == ["0001-research", "0002-plan", "0003-plan", "0004-design"]
    assert "rejected: scope too wide" in done.stderr
    retry = json.loads((run_dir / "handoffs" / "0003-plan.json").read_text())["raw"]
    assert "(reviewer: scope too wide)" in retry


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_pipeline_gets_a_multi_line_reason_from_a_reviewer_with_a_colon(
    tmp_path: Path,
) -> None:
    """The reason comes from ``wait --json``: parsing prose lost it for ``ops:alice``
    (an empty reason) and kept only the first line of a reason over several."""
    revise = tmp_path / "revise.sh"
    revise.write_text(f'#!/bin/sh\nprintf %s "$HANDOFF_GATE_REASON" >{tmp_path}/reason.txt\n'
                      f"cat {EXAMPLES}/replies/$1.json\n")  # fmt: skip
    revise.chmod(0o755)
    run_dir = tmp_path / "run"
    reason = "name one risk\nand cite the export"
    reviewer = Reviewer(run_dir, "0001-research", reviewer="ops:alice", reason=reason)
    command = ["bash", str(EXAMPLES / "pipeline.sh"), str(run_dir)]
    env = {**shell_env(), "REVISE": str(revise)}
    done, _ = run_example(command, run_dir, env=env, reviewer=reviewer)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "reason.txt").read_text() == reason
    assert "(rejected by ops:alice)" in done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_pipeline_shows_why_a_submit_failed(tmp_path: Path) -> None:
    """Under ``set -e`` a failing submit used to end the script without a word."""
    (tmp_path / "file").write_text("not a folder")
    command = ["bash", str(EXAMPLES / "pipeline.sh"), str(tmp_path / "file" / "run")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BOUND, env=shell_env())
    assert done.returncode == 2
    assert "handoff-gate submit: cannot submit" in done.stderr


@pytest.mark.parametrize("example", ["pydantic_ai_agent.py", "langgraph_graph.py"])
def test_framework_examples_retry_after_a_reject_and_print_the_approved_plan(
    tmp_path: Path, example: str
) -> None:
    run_dir = tmp_path / "run"
    done, reviewer = run_example(
        [sys.executable, str(EXAMPLES / example), str(run_dir)], run_dir, reject="0001-plan"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert reviewer.decided == ["0001-plan", "0002-plan"]
    assert json.loads(done.stdout)["risks"] == ["the export may miss manual retries"]


NODE = shutil.which("node")
NODE_STEPS = ["0001-manifest", "0002-verify"]


@pytest.mark.skipif(NODE is None, reason="the Node example needs node (20 or later)")
@pytest.mark.parametrize(("reject", "exit_code"), [(None, 0), ("0002-verify", 1)])
def test_node_pipeline_submits_json_schema_contracts_and_waits(
    tmp_path: Path, reject: str | None, exit_code: int
) -> None:
    """A pipeline with no Python of its own: its contracts reach the reviewer (a thread
    with only the built-in contracts) as JSON Schema stored in the run."""
    assert NODE is not None
    done, reviewer = run_example(
        [NODE, str(EXAMPLES / "pipeline.mjs"), str(tmp_path)], tmp_path, reject, shell_env()
    )
    assert done.returncode == exit_code, done.stdout + done.stderr
    assert reviewer.decided == NODE_STEPS
    envelopes = [json.loads((tmp_path / "handoffs" / f"{i}.json").read_text()) for i in NODE_STEPS]
    assert all(len(e["schema_sha256"]) == 64 for e in envelopes)
    assert {p.name for p in (tmp_path / "contracts" / "ids").iterdir()} == {
        "manifest@v1.json",
        "verify@v1.json",
    }
    if reject is None:
        assert (
            "0002-verify: approved; delivered build_succeeded, failures, feature_id" in done.stdout
        )
        assert "every step approved" in done.stdout
    else:
        assert "not approved (exit 1)" in done.stdout and "scope too wide" in done.stdout
