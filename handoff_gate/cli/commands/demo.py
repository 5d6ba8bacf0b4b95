"""``handoff-gate demo``: the sample runs plus a live, blocked pipeline in a scratch folder.

The demo (and the app with it) is imported once the frame rate is asked for
(``cli.frame_rate``): Textual reads it when it is imported.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from handoff_gate.cli.frame_rate import prefer_tui_frame_rate


def run(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace) if args.workspace else None
    prefer_tui_frame_rate()
    from handoff_gate.demo import run_demo

    return run_demo(workspace, open_tui=not args.no_tui, keep=args.keep)
