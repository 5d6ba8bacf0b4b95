"""Waiter process for the pickup benchmark: ``gates.waiting.wait`` and nothing else.

``python -m bench.waiter RUN_DIR HANDOFF_ID [POLICY]`` prints the outcome and the
perf_counter at the moment ``wait`` returned (CLOCK_MONOTONIC, comparable with the
deciding process). With ``POLICY`` the wait settles only on approvals signed under it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from handoff_gate.gates.api import wait
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.trust.policy import Policy


def main() -> None:
    run_dir, handoff = Path(sys.argv[1]), sys.argv[2]
    registry = load_registry()
    if len(sys.argv) > 3:
        policy = Policy.load(Path(sys.argv[3]))
        result = wait(run_dir, handoff, registry=registry, timeout=60, policy=policy)
    else:
        result = wait(run_dir, handoff, registry=registry, timeout=60)
    returned = time.perf_counter()
    delivered = result.payload is not None
    print(json.dumps({"t": returned, "outcome": result.outcome.value, "payload": delivered}))


if __name__ == "__main__":
    main()
