"""Time a terminal app from spawn to its first paint of a marker, in a real pseudo-terminal.

The app cannot tell this from a person's terminal, so the figure includes everything a
user waits for: interpreter start, imports, first layout and the bytes on the wire.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench.procs import ROOT, child_env

COLUMNS, LINES = 120, 40


@dataclass(frozen=True, slots=True)
class Paint:
    seconds: float  # spawn -> marker on the terminal
    settled_s: float  # spawn -> CPU went quiet (initial work done)
    peak_rss_mb: float  # VmHWM when measured: peak resident memory up to then
    screen: str = ""  # the tail of what was painted by then, escapes and boxes removed


_ANSI = re.compile(r"\x1b(?:\[[0-9;?<>=$ ]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|.)")


def _plain(output: bytes) -> str:
    """Terminal output without escape sequences or box drawing, for an error message."""
    text = _ANSI.sub("", output.decode("utf-8", "replace"))
    return " ".join(t for t in re.split(r"[\s\u2500-\u257f]+", text) if t)


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _peak_rss_mb(pid: int) -> float:
    """VmHWM: the high-water mark of resident memory, read while the process still lives."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _drain(fd: int, timeout: float) -> bytes:
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the child closed the terminal
        return b""


def first_paint(
    argv: Sequence[str],
    marker: bytes,
    *,
    settle: bool = False,
    bound_s: float = 60.0,
    env: dict[str, str] | None = None,
) -> Paint:
    """Spawn ``argv`` on a pty, wait until ``marker`` is painted, optionally until CPU idles.

    Settling watches the child's CPU ticks (1/100 s) until two consecutive 0.3 s windows
    add at most one tick, so memory is read once the app finished loading, not mid-way.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    terminal = {"TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(LINES)}
    env = (child_env() if env is None else env) | terminal
    env.pop("NO_COLOR", None)
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    painted = settled = 0.0
    try:
        deadline = start + bound_s
        while not painted:
            if time.perf_counter() > deadline or proc.poll() is not None:
                raise RuntimeError(f"no paint of {marker!r}; screen ended: {_plain(seen)[-300:]!r}")
            seen = (seen + _drain(master, 0.05))[-1_000_000:]
            if marker in seen:
                painted = time.perf_counter() - start
        settled = painted
        if settle:
            quiet, before = 0, _cpu_ticks(proc.pid)
            while quiet < 2 and time.perf_counter() < deadline:
                window_end = time.perf_counter() + 0.3
                while time.perf_counter() < window_end:
                    seen = (seen + _drain(master, 0.05))[-1_000_000:]
                now = _cpu_ticks(proc.pid)
                quiet = quiet + 1 if now - before <= 1 else 0
                before = now
            settled = time.perf_counter() - start - 0.6
        peak = _peak_rss_mb(proc.pid)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        stop_by = time.perf_counter() + 5
        while proc.poll() is None and time.perf_counter() < stop_by:
            _drain(master, 0.05)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    os.close(master)
    return Paint(painted, settled, peak, _plain(seen[-200_000:]))
