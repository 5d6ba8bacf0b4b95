"""``python -m bench [--quick|--smoke] [--only NAME ...] [--json PATH]``."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path

from bench.config import PROFILES, Context
from bench.figures import Figure, failed
from bench.machine import machine_notes
from bench.table import render

#: Benchmark name -> module with ``run(ctx) -> list[Figure]``, in the order they run.
BENCHMARKS = {
    "inspect": "bench.inspect_cost",
    "json_schema": "bench.json_schema_cost",
    "mcp_inspect": "bench.mcp_inspect",
    "hostile_list": "bench.hostile_list",
    "pickup": "bench.pickup",
    "tools": "bench.tool_pickup",
    "run_size": "bench.run_size",
    "pg": "bench.pg_pickup",
    "pg_watch": "bench.pg_watch",
    "visible": "bench.visible",
    "scale": "bench.scale",
    "startup": "bench.startup",
    "batch": "bench.batch_decide",
    "hook": "bench.hook",
    "hook_rule": "bench.hook_rule",
    "mcp": "bench.mcp_proxy",
    "agents": "bench.agent_run",
    "serve": "bench.serve",
}
DEFAULT_JSON = Path(__file__).parent / "results" / "latest.json"


def _run_one(name: str, ctx: Context) -> list[Figure]:
    try:
        module = importlib.import_module(BENCHMARKS[name])
        figures: list[Figure] = module.run(ctx)
    except Exception as exc:  # one broken benchmark must not hide the others
        traceback.print_exc(file=sys.stderr)
        return [failed(name, f"{type(exc).__name__}: {exc}")]
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer repetitions (about a minute)")
    mode.add_argument("--smoke", action="store_true", help="tiny sizes: proves the harness runs")
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BENCHMARKS),
        metavar="NAME",
        help=f"run only these benchmarks ({', '.join(BENCHMARKS)}); repeatable",
    )
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write results")
    args = parser.parse_args(argv)

    profile = PROFILES["smoke" if args.smoke else "quick" if args.quick else "full"]
    names = [n for n in BENCHMARKS if not args.only or n in args.only]
    notes = machine_notes()
    print(" ".join(f"{k}={v}" for k, v in notes.items() if k != "libraries"), flush=True)
    figures: list[Figure] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hg-bench-") as tmp:
        for name in names:
            t0 = time.perf_counter()
            print(f"[{name}] running ...", file=sys.stderr, flush=True)
            ctx = Context(profile=profile, workdir=Path(tmp) / name)
            ctx.workdir.mkdir()
            figures.extend(_run_one(name, ctx))
            print(f"[{name}] {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started

    print(render(figures))
    missed = [f.name for f in figures if f.met is False]
    errors = [f.name for f in figures if f.error]
    print(
        f"\n{len(figures)} figures in {elapsed:.0f} s ({profile.name}); "
        f"missed: {', '.join(missed) or 'none'}; errors: {', '.join(errors) or 'none'}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "profile": profile.name,
        "elapsed_s": elapsed,
        "machine": notes,
        "figures": [f.to_json() for f in figures],
    }
    args.json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"results: {args.json}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
