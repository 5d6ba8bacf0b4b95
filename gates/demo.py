"""``handoff-gate demo``: the sample runs plus a live, blocked pipeline, in a scratch workspace.

The sample runs are copied out of the repository first, so a demo can approve, reject
and edit freely without touching committed files. The simulated pipeline runs in a child
process so that it blocks on the gate exactly like a real one, and its output goes to a
log file because the terminal belongs to the TUI.
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType

from handoff_gate.gates.registry import ENV_VAR, load_registry
from handoff_gate.gates.simulator import LIVE_RUN
from handoff_gate.gates.store import is_run

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_runs"
CONTRACTS = "lenient_contracts.py"
LOG = "simulator.log"
#: How long the simulator gets to finish after SIGTERM before it is killed.
STOP_GRACE_SECONDS = 10.0


class DemoError(Exception):
    """The demo cannot start; the message is one line for stderr."""


def prepare_workspace(workspace: Path | None) -> Path:
    """A fresh workspace holding copies of the sample runs and their user contracts."""
    if not SAMPLES.is_dir():
        raise DemoError(f"sample runs not found at {SAMPLES}: run the demo from a clone")
    if workspace is None:
        target = Path(tempfile.mkdtemp(prefix="handoff-gate-demo-"))
    else:
        target = workspace.resolve()
        if target.is_relative_to(REPO):
            raise DemoError(f"{target} is inside the repository; choose a directory outside it")
        if target.exists() and any(target.iterdir()):
            raise DemoError(f"{target} is not empty; the demo needs a fresh directory")
        target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(SAMPLES.iterdir()):
        if entry.is_dir() and is_run(entry):
            shutil.copytree(entry, target / entry.name, symlinks=True)
    for name in (CONTRACTS, "README.md"):
        shutil.copy2(SAMPLES / name, target / name)
    return target


def start_simulator(workspace: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, ENV_VAR: str(workspace / CONTRACTS)}
    with (workspace / LOG).open("ab") as log:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "handoff_gate.gates.simulator",
                str(workspace),
                "--run",
                LIVE_RUN,
            ],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def stop_simulator(proc: subprocess.Popen[bytes]) -> int | None:
    """Ask the simulator to stop, wait a bounded time, then kill it. Returns its exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _run_headless(proc: subprocess.Popen[bytes]) -> None:
    """Block until the simulator ends or this process gets SIGINT/SIGTERM."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_demo(workspace: Path | None, *, open_tui: bool) -> int:
    """Copy the samples, start the live pipeline, show it; 0 on a clean stop, 2 if it cannot."""
    try:
        target = prepare_workspace(workspace)
        registry = load_registry(str(target / CONTRACTS))
    except (DemoError, OSError) as exc:
        print(f"handoff-gate demo: {exc}", file=sys.stderr)
        return 2
    print(f"demo workspace: {target}", flush=True)
    proc = start_simulator(target)
    try:
        if open_tui:
            app = importlib.import_module("handoff_gate.tui.app")
            app.run_app(target, registry, reviewer=None, show="pending", poll=False, quiet=False)
        else:
            print(f"live run {target / LIVE_RUN}: headless, Ctrl-C stops", flush=True)
            _run_headless(proc)
    finally:
        code = stop_simulator(proc)
        print(f"simulator stopped (exit {code}); log: {target / LOG}")
        print(f"the demo workspace is kept at {target}", flush=True)
    return 0
