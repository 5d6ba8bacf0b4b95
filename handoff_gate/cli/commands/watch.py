"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from handoff_gate.cli.inputs import registry
from handoff_gate.gates.contracts.registry import ENV_VAR
from handoff_gate.tui.app import run_app


def run(args: argparse.Namespace) -> int:
    spec = os.environ.get(ENV_VAR, "") if args.schemas is None else args.schemas
    # ``read_only`` is passed only when asked for, so this works with a ``run_app``
    # from before it took the parameter (then ``--read-only`` fails loudly, not silently).
    options: dict[str, Any] = {"read_only": True} if args.read_only else {}
    return int(
        run_app(
            Path(args.root),
            registry(spec),
            reviewer=args.reviewer,
            show=args.show,
            poll=args.poll,
            quiet=args.quiet,
            **options,
        )
    )
