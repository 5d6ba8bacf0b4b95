"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from handoff_gate.cli.errors import UsageError
from handoff_gate.cli.inputs import policy, registry, signing_key, store
from handoff_gate.gates.contracts.registry import ENV_VAR
from handoff_gate.tui.app import run_app


def run(args: argparse.Namespace) -> int:
    spec = os.environ.get(ENV_VAR, "") if args.schemas is None else args.schemas
    where = store(args)
    if where.is_local and not args.root:
        raise UsageError("watch needs ROOT: a run directory or a folder of runs")
    if not where.is_local and args.root:
        raise UsageError("with a database store, watch takes no ROOT: it shows every run")
    return int(
        run_app(
            Path(args.root) if args.root else None,
            registry(spec),
            reviewer=args.reviewer,
            show=args.show,
            poll=args.poll,
            quiet=args.quiet,
            read_only=args.read_only,
            key=signing_key(args),
            policy=policy(args),
            store=where,
        )
    )
