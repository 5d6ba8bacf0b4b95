"""Writer process for the PostgreSQL watch benchmark: submits handoffs into a store run.

``python -m bench.pg_writer URL RUN --count N --gap-ms LO HI`` submits N example handoffs
(phase ``step``) through ``gates.submit.submit`` on a ``PostgresStore``, pausing a random gap
between LO and HI ms, and prints ``{"<id>.json": perf_counter once submit returned}``: the
moment the row is committed, which is when a reviewer could first see it. The names have
the form the TUI probe records, so they compare with the filesystem writer's.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from handoff_gate.gates.api import submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.schemas import example_path


def submit_all(url: str, run: str, count: int, gap_lo: float, gap_hi: float) -> dict[str, float]:
    rng = random.Random(1)
    registry = load_registry()
    payload = example_path("plan/v1").read_bytes()
    stamps: dict[str, float] = {}
    with PostgresStore(url) as store:
        store.handoff_ids(run)  # connect before the schedule starts, as a running writer has
        due = time.perf_counter()
        for _ in range(count):
            due += rng.uniform(gap_lo, gap_hi) / 1000
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            ref = submit(
                run, payload, phase="step", schema_id="plan/v1", registry=registry, store=store
            )
            stamps[f"{ref.id}.json"] = time.perf_counter()
    return stamps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("run")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--gap-ms", type=float, nargs=2, default=(150.0, 250.0))
    args = parser.parse_args()
    print(json.dumps(submit_all(args.url, args.run, args.count, *args.gap_ms)), flush=True)


if __name__ == "__main__":
    main()
