"""Writer process: moves prepared handoff files into a watched directory by atomic rename.

``python -m bench.writer SRC DST --gap-ms LO HI`` renames each ``*.json`` of SRC (sorted) into
DST, pausing a random gap between LO and HI ms (jitter keeps the schedule from locking
onto the watcher's polling step), and prints ``{file name: perf_counter after rename}``.
``perf_counter`` is CLOCK_MONOTONIC on Linux, so other processes can compare with it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path


def move_all(src: Path, dst: Path, gap_lo: float, gap_hi: float, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    stamps: dict[str, float] = {}
    due = time.perf_counter()
    for path in sorted(src.glob("*.json")):
        due += rng.uniform(gap_lo, gap_hi) / 1000
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        os.replace(path, dst / path.name)
        stamps[path.name] = time.perf_counter()
    return stamps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--gap-ms", type=float, nargs=2, default=(150.0, 250.0))
    args = parser.parse_args()
    print(json.dumps(move_all(args.src, args.dst, *args.gap_ms)), flush=True)


if __name__ == "__main__":
    main()
