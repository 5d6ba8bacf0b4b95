"""``handoff-gate demo``: the sample runs plus a live, blocked pipeline, in a scratch workspace.

The sample runs are copied out first, so a demo can decide freely without touching
committed files. The simulated pipeline runs in a child process so that it blocks on
the gate exactly like a real one, its output in a log file because the terminal belongs
to the TUI (``demo.progress`` raises each line as a notification).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType

from handoff_gate.demo.progress import ProgressToasts
from handoff_gate.demo.simulator import LIVE_RUN, STOPPED
from handoff_gate.gates.api import read_decision
from handoff_gate.gates.audit.decision_record import DecisionCorrupt
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble, load_contracts
from handoff_gate.gates.store.filesystem import is_run, list_handoffs
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV
from handoff_gate.tui.review_app import ReviewApp

REPO = Path(__file__).resolve().parents[2]
#: Package data, so an installed wheel has them too (the checkout's sample_runs links here).
SAMPLES = Path(__file__).resolve().parent / "sample_runs"
CONTRACTS = "lenient_contracts.py"
LOG = "simulator.log"
#: How long the simulator gets to finish after SIGTERM before it is killed.
STOP_GRACE_SECONDS = 10.0
#: Headless: how often the live run is listed for new handoffs (one small folder).
FOLLOW_SECONDS = 0.2


class DemoError(Exception):
    """The demo cannot start; the message is one line for stderr."""


def prepare_workspace(workspace: Path | None) -> Path:
    """A fresh workspace holding copies of the sample runs and their user contracts."""
    if not SAMPLES.is_dir():
        raise DemoError(f"sample runs not found at {SAMPLES}: reinstall handoff-gate")
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
    env = {**os.environ, SCHEMAS_ENV: str(workspace / CONTRACTS)}
    argv = [sys.executable, "-m", "handoff_gate.demo.simulator", str(workspace), "--run", LIVE_RUN]
    with (workspace / LOG).open("ab") as log:
        return subprocess.Popen(
            argv,
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


def _undecided(run_dir: Path, handoff_id: str) -> bool:
    try:
        return read_decision(run_dir, handoff_id) is None
    except DecisionCorrupt:
        return False


def _announce(run_dir: Path, handoff_id: str) -> None:
    """Tell the person at the terminal what the pipeline is blocked on and what to type."""
    run = shlex.quote(str(run_dir))
    print(f"{handoff_id} is waiting for a decision; type one of:", flush=True)
    print(f"  handoff-gate show {run} {handoff_id}")
    print(f"  handoff-gate decide {run} {handoff_id} approve")
    print(f"  handoff-gate decide {run} {handoff_id} reject --reason 'what to change'", flush=True)


def _follow(proc: subprocess.Popen[bytes], run_dir: Path, stop: threading.Event) -> None:
    """Announce each new undecided handoff of the live run until the simulator ends or
    ``stop`` is set."""
    announced: set[str] = set()
    while not stop.is_set():
        for ref in list_handoffs(run_dir):
            if ref.id not in announced and _undecided(run_dir, ref.id):
                announced.add(ref.id)
                _announce(run_dir, ref.id)
        try:
            proc.wait(timeout=FOLLOW_SECONDS)
        except subprocess.TimeoutExpired:
            continue
        break
    print(_ending(proc.returncode, stopped=stop.is_set()), flush=True)


def _ending(code: int | None, *, stopped: bool) -> str:
    """How the headless pipeline ended, in words: only a simulator that exited 0 of its
    own accord finished. Ctrl-C in a terminal signals the simulator too, so it may be
    gone (``STOPPED``) before this process's own handler has run."""
    if stopped or code == STOPPED:
        return "pipeline stopped before it finished (Ctrl-C or SIGTERM)"
    if code == 0:
        return "pipeline finished: every phase approved"
    return f"pipeline ended early (exit {code}); see {LOG}"


def _run_headless(proc: subprocess.Popen[bytes], run_dir: Path) -> None:
    """Follow the live run until the simulator ends or this process gets SIGINT/SIGTERM.

    The signals set an event that the loop reads between polls. Raising
    ``KeyboardInterrupt`` from the handler let the exception land anywhere: inside
    ``Popen.wait`` just after it took its internal lock, it left that lock held, and the
    ``wait`` of ``stop_simulator`` then blocked forever, which is how the demo's tests
    could hang under load.
    """
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        _follow(proc, run_dir, stop)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run_tui(target: Path, registry: Registry) -> None:
    """The app over the workspace, with the pipeline's progress raised as notifications."""
    with Gate(setup=assemble(target, contracts=registry, env={})) as gate:
        app = ReviewApp(gate)
        progress = ProgressToasts(app, target / LOG)
        progress.start()
        try:
            app.run()
        finally:
            progress.stop()


def run_demo(workspace: Path | None, *, open_tui: bool, keep: bool = False) -> int:
    """Copy the samples, start the live pipeline, show it; 0 on a clean stop, 2 if it cannot.

    A temporary workspace (``workspace`` is ``None``) is removed at the end unless ``keep``.
    """
    try:
        target = prepare_workspace(workspace)
        registry = load_contracts(str(target / CONTRACTS), policy=None)
    except (DemoError, OSError) as exc:
        print(f"handoff-gate demo: {exc}", file=sys.stderr)
        return 2
    print(f"demo workspace: {target}", flush=True)
    proc = start_simulator(target)
    try:
        if open_tui:
            _run_tui(target, registry)
        else:
            print(f"live run {target / LIVE_RUN}: headless, Ctrl-C stops", flush=True)
            _run_headless(proc, target / LIVE_RUN)
    finally:
        code = stop_simulator(proc)
        print(f"simulator stopped (exit {code}); log: {target / LOG}")
        if workspace is None and not keep:
            shutil.rmtree(target, ignore_errors=True)
            print(f"the demo workspace {target} is removed (--keep keeps it)", flush=True)
        else:
            print(f"the demo workspace is kept at {target}", flush=True)
    return 0
