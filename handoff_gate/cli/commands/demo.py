"""``handoff-gate demo``: the sample runs plus a live, blocked pipeline in a scratch folder.

``cli.main`` asks for the app's frame rate before it imports this module (Textual reads
it when it is imported). The demo makes its own workspace and pipeline, so it asks nothing of
the command's Gate (which therefore opens nothing).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from handoff_gate.demo.runner import run_demo
from handoff_gate.gates.gate import Gate


def run(gate: Gate, args: argparse.Namespace) -> int:
    workspace = Path(args.workspace) if args.workspace else None
    return run_demo(workspace, open_tui=not args.no_tui, keep=args.keep)
