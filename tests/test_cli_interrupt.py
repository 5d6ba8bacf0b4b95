"""Ctrl-C says one line and exits 130 (2 for a hook, which blocks the call), never a
traceback and never silence: a submit stopped while reading its payload stored nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _interrupted(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``handoff-gate ARGS`` waiting on an open stdin, sent SIGINT once it is running.

    The command starts with SIGINT at its default, as a command typed in a terminal does:
    a suite run in the background of a shell without job control inherits SIGINT ignored,
    and a child started from it would ignore the Ctrl-C this test stands in for.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "handoff_gate.cli", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    wchan = Path(f"/proc/{process.pid}/wchan")
    deadline = time.monotonic() + 60
    while "pipe_read" not in wchan.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)  # until it is past start-up, blocked reading its stdin
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        (("submit", "run", "--phase", "plan", "--schema", "plan/v1", "-"), 130,
         "handoff-gate submit: interrupted\n"),
        (("hook", "claude-code", "run"), 2,
         "handoff-gate hook claude-code: stopped by SIGINT; the call is blocked\n"),
    ],
)  # fmt: skip
def test_ctrl_c_says_one_line(tmp_path: Path, args: tuple[str, ...], code: int, line: str) -> None:
    done = _interrupted(tmp_path, *args)
    assert (done.returncode, done.stdout, done.stderr) == (code, "", line)
    assert not (tmp_path / "run" / "handoffs").exists() or not any(
        (tmp_path / "run" / "handoffs").iterdir()
    )
