"""Repetition counts and sizes for each run mode.

``full`` is the documented run (a few minutes on 2 cores); ``quick`` trades repetitions
for speed; ``smoke`` only proves the harness works end to end (tests use it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    latency_reps: int  # isolated events per latency figure
    burst: int  # handoffs in a burst, written 5 ms apart
    cost_small_reps: int  # repetitions of the ~2 KB inspection
    cost_big_reps: int  # repetitions of each multi-MB inspection
    big_mb: float  # the "~5 MB" payload
    growth_mb: tuple[float, float]  # sizes compared for super-linear growth
    startup_reps: int
    runs: int  # TUI scale: runs x handoffs
    handoffs_per_run: int
    leaves: int  # TUI scale: leaf fields of one payload
    scale_reps: int  # first paints of the big root (the first also runs to idle)
    fanout: int = 500  # concurrent wait_async calls on one handoff
    run_size: int = 100_000  # handoffs in the long run of the append-only lookup


PROFILES = {
    "full": Profile("full", 60, 100, 300, 12, 5.0, (1.0, 4.0), 12, 100, 100, 100_000, 5),
    "quick": Profile("quick", 15, 100, 100, 5, 5.0, (1.0, 4.0), 5, 100, 100, 100_000, 2),
    "smoke": Profile(
        "smoke", 2, 5, 3, 1, 0.05, (0.02, 0.08), 1, 2, 3, 200, 1, fanout=20, run_size=60
    ),
}


@dataclass(frozen=True, slots=True)
class Context:
    """What every benchmark receives: its profile and a scratch directory it may fill."""

    profile: Profile
    workdir: Path
    python: str = sys.executable

    @property
    def bin_dir(self) -> Path:
        return Path(self.python).parent
