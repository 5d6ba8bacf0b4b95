"""Child-process plumbing: start a benchmark child, know when it is watching, collect its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from handoff_gate.cli.frame_rate import TUI_FPS

ROOT = Path(__file__).resolve().parent.parent


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


#: The headless apps the benchmarks time: they get the frame rate ``watch`` asks for
#: (``cli.frame_rate``), which Textual reads when it is imported.
TUI_PROBES = frozenset({"bench.tui_probe", "bench.tui_store_probe"})


#: The project's one installed package, whose start-up the benchmarks time: the CLI,
#: demo and integrations, and through its links ``gates``, ``schemas`` and ``tui``.
PACKAGES = ("handoff_gate",)


def compile_project(python: str) -> None:
    """Write the project's bytecode cache once, before anything times its start-up.

    An installed package ships (or writes on first run) its ``.pyc`` files, and pydantic's
    and textual's are cached here. This environment sets ``PYTHONDONTWRITEBYTECODE=1``,
    so without this step our modules would be recompiled from source on every spawn
    (about 19 ms), a cost no user pays. Cached bytecode is still read when writing is
    disabled, and Python checks each ``.pyc`` against its source, so an edit is never
    timed stale. This is a correction towards what users run, not a shortcut.
    """
    subprocess.run([python, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True, timeout=120)


def start(
    args: Sequence[str], env: dict[str, str] | None = None, *, stdin: str | None = None
) -> subprocess.Popen[str]:
    """Start a child; ``stdin`` is written to it and closed (``finish`` then only reads)."""
    proc = subprocess.Popen(
        list(args),
        stdin=subprocess.PIPE if stdin is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or child_env(),
        cwd=ROOT,
    )
    if proc.stdin is not None:
        proc.stdin.write(stdin or "")
        proc.stdin.close()
        proc.stdin = None
    return proc


def start_module(module: str, *args: str) -> subprocess.Popen[str]:
    env = child_env()
    if module in TUI_PROBES:
        env.setdefault("TEXTUAL_FPS", TUI_FPS)
    return start([sys.executable, "-m", module, *args], env)


def inotify_watches(pid: int) -> int:
    """How many inotify watches (one per watched directory) the process holds right now."""
    count = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            if "inotify" not in os.readlink(f"/proc/{pid}/fd/{fd}"):
                continue
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        count += sum(1 for line in info.splitlines() if line.startswith("inotify wd:"))
    return count


def directories(root: Path) -> int:
    return 1 + sum(1 for p in root.rglob("*") if p.is_dir())


def wait_until_watching(
    proc: subprocess.Popen[str], root: Path, bound_s: float = 30.0, *, recursive: bool = True
) -> None:
    """Block until ``proc`` watches every directory under ``root`` (it is armed), or fail.

    ``recursive=False`` for a watcher of ``root`` alone (the gate's shared watcher).
    """
    want = directories(root) if recursive else 1
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"watcher exited early: {finish(proc, 1)}")
        if inotify_watches(proc.pid) >= want:
            return
        time.sleep(0.002)
    raise TimeoutError(f"pid {proc.pid} did not watch {root} within {bound_s} s")


def finish(proc: subprocess.Popen[str], bound_s: float = 60.0, *, whole: bool = False) -> Any:
    """Wait for the child and parse its result: the last stdout line as JSON, or all of it."""
    try:
        out, err = proc.communicate(timeout=bound_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise TimeoutError(f"child timed out: {err[-2000:]}") from None
    if proc.returncode != 0:
        raise RuntimeError(f"child exited {proc.returncode}: {err[-2000:]}")
    if whole:
        return json.loads(out)
    lines = out.strip().splitlines()
    if not lines:
        raise RuntimeError(f"child printed nothing: {err[-2000:]}")
    return json.loads(lines[-1])
