"""Waiter process for the pickup benchmark: ``gates.waiting.wait`` and nothing else.

``python -m bench.waiter RUN_DIR HANDOFF_ID`` prints the outcome and the perf_counter at
the moment ``wait`` returned (CLOCK_MONOTONIC, comparable with the deciding process).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from handoff_gate.gates.registry import load_registry
from handoff_gate.gates.waiting import wait


def main() -> None:
    run_dir, handoff = Path(sys.argv[1]), sys.argv[2]
    result = wait(run_dir, handoff, registry=load_registry(), timeout=60)
    returned = time.perf_counter()
    delivered = result.payload is not None
    print(json.dumps({"t": returned, "outcome": result.outcome.value, "payload": delivered}))


if __name__ == "__main__":
    main()
