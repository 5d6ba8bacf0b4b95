"""The TUI over a database store, headless, with the row paint probes of ``bench.tui_probe``.

``python -m bench.tui_store_probe URL --expect N --bound S --ready PATH``: runs
``ReviewApp`` on a ``PostgresStore`` (every run in the database, as
``handoff-gate --store URL watch`` does). Once the rows already in the store are listed it
creates PATH: by then the listener is subscribed, since the first listing follows its
``LISTEN``. It then waits for N new rows and prints ``listed`` and ``painted`` like
``tui_probe visible``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from bench.tui_probe import SIZE, probe_rows
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.tui.model import ReviewOptions
from handoff_gate.tui.review_app import ReviewApp


async def visible(url: str, expect: int, bound: float, ready: Path) -> dict[str, Any]:
    painted: dict[str, float] = {}
    listed: dict[str, float] = {}
    probe_rows(painted, listed)
    with PostgresStore(url) as store:
        before = {f"{i}.json" for run in store.runs() for i in store.handoff_ids(run)}
        gate = Gate(setup=assemble(store, contracts=load_registry(), env={}))
        app = ReviewApp(gate, ReviewOptions(quiet=True))
        deadline = time.perf_counter() + bound
        async with app.run_test(headless=True, size=SIZE):
            while time.perf_counter() < deadline and not before <= listed.keys():
                await asyncio.sleep(0.01)
            existing = set(listed)
            ready.touch()
            while time.perf_counter() < deadline and len(listed.keys() - existing) < expect:
                await asyncio.sleep(0.01)
            settle = time.perf_counter() + 0.5
            while time.perf_counter() < settle and len(painted.keys() - existing) < expect:
                await asyncio.sleep(0.01)
    return {"painted": painted, "listed": listed}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--expect", type=int, required=True)
    parser.add_argument("--bound", type=float, default=60.0)
    parser.add_argument("--ready", type=Path, required=True)
    args = parser.parse_args()
    result = asyncio.run(visible(args.url, args.expect, args.bound, args.ready))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
