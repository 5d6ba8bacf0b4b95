"""``handoff-gate list``: every handoff under ROOT, one line (or JSON object) each.

The shell view for reviewers: grep it by run, reviewer, category or reason; filter it
by state. Text from decisions is flattened to one escape-free line per handoff.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from handoff_gate.cli.errors import OK, UsageError, flat
from handoff_gate.cli.inputs import policy, registry, store
from handoff_gate.cli.status import HandoffStatus, status_of
from handoff_gate.gates.store.base import RunCatalog, RunStore
from handoff_gate.gates.store.filesystem import HandoffRef, find_runs, list_handoffs, ref_of


def _field(value: object) -> str:
    return "-" if value is None or value == "" else flat(str(value))


def _line(status: HandoffStatus) -> str:
    row = status.to_json()
    fixed = "  ".join(
        _field(row[key]) for key in ("run", "id", "phase", "schema", "state", "verdict")
    )
    waiter = "waiter=yes" if status.waiter else "waiter=no"
    tail = "  ".join(
        f"{key}={_field(row[key])}" for key in ("reviewer", "category", "decided_at", "reason")
    )
    problem = f"  problem={_field(status.problem)}" if status.problem else ""
    return f"{fixed}  {waiter}  {tail}{problem}"


def _handoffs(args: argparse.Namespace, where: RunStore) -> Iterator[HandoffRef]:
    """Every handoff under ROOT (a run directory or a folder of them), or in the store."""
    if not where.is_local:
        if args.root:
            raise UsageError("with a database store, list takes no ROOT: it lists every run")
        for run in where.runs() if isinstance(where, RunCatalog) else []:
            for handoff_id in where.handoff_ids(run):
                yield ref_of(Path(run), handoff_id)
        return
    if not args.root:
        raise UsageError("list needs ROOT: a run directory or a folder of runs")
    root = Path(args.root)
    if not root.is_dir():
        raise UsageError(f"not a directory: {flat(args.root)}")
    for run_dir in find_runs(root):
        yield from list_handoffs(run_dir)


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    where = store(args)
    rules = policy(args)
    found = [
        status
        for status in (
            status_of(ref, contracts, store=where, policy=rules) for ref in _handoffs(args, where)
        )
        if args.state is None or status.state.value == args.state
    ]
    if args.json:
        print(json.dumps([s.to_json() for s in found], ensure_ascii=True, indent=2))
    else:
        for status in found:
            print(_line(status))
    return OK
