"""Waiter processes for the PostgreSQL pickup benchmark.

``python -m bench.pg_waiters gate URL RUN HANDOFF``: ``handoff_gate.wait`` on a
``PostgresStore``, nothing else. ``python -m bench.pg_waiters bare URL RUN HANDOFF``: the
baseline, a bare psycopg connection that LISTENs on the schema's channel, is woken by the
``decisions`` insert trigger's NOTIFY naming the handoff, and reads the decision row.
Both print ``{"t": perf_counter when it returned, "outcome": ...}`` as one JSON line.
"""

from __future__ import annotations

import json
import sys
import time

import psycopg

from handoff_gate.gates.api import wait
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import CHANNEL

#: How long either waiter waits at most, in seconds.
BOUND_S = 60.0


def gate(url: str, run: str, handoff: str) -> dict[str, object]:
    with PostgresStore(url) as store:
        result = wait(run, handoff, registry=load_registry(), timeout=BOUND_S, store=store)
        returned = time.perf_counter()
    return {"t": returned, "outcome": result.outcome.value, "payload": result.payload is not None}


def bare(url: str, run: str, handoff: str) -> dict[str, object]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        deadline = time.monotonic() + BOUND_S
        query = "SELECT data FROM decisions WHERE run = %s AND handoff_id = %s"
        while time.monotonic() < deadline:
            # The notifies generator holds the connection: leave it before querying.
            hinted = any(
                _names(json.loads(notice.payload), run, handoff)
                for notice in conn.notifies(timeout=0.1, stop_after=1)
            )
            if hinted and conn.execute(query, (run, handoff)).fetchone() is not None:
                return {"t": time.perf_counter(), "outcome": "approved", "payload": True}
    raise TimeoutError(f"no decision for {run}/{handoff} within {BOUND_S} s")


def _names(hint: object, run: str, handoff: str) -> bool:
    return isinstance(hint, dict) and hint.get("run") == run and hint.get("handoff") == handoff


def main() -> None:
    kind, url, run, handoff = sys.argv[1:5]
    out = gate(url, run, handoff) if kind == "gate" else bare(url, run, handoff)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
