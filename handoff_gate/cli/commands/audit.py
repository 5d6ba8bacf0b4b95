"""``handoff-gate audit RUN [--verify] [--json]``: the run's history, or a check of it.

Every value printed is sanitised: anyone who can write the run could have edited the
log. What ``--verify`` compares is ``Gate.verify``'s (docs/security.md).
"""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.errors import FAIL, OK, flat
from handoff_gate.cli.inputs import existing_run
from handoff_gate.gates.gate import Gate, audit_lines


def run(gate: Gate, args: argparse.Namespace) -> int:
    run = existing_run(args.run_dir, gate.setup.store)  # the whole configuration, checked
    if args.verify:
        problems = gate.verify(run)
        for problem in problems:
            print(flat(problem))
        if not problems:
            print(f"{flat(run)}: the audit log and the run's records agree")
        return FAIL if problems else OK
    events = gate.audit_events(run)
    if args.json:
        for event in events:
            print(json.dumps(event, ensure_ascii=True, sort_keys=True))
    else:
        for line in audit_lines(events):
            print(line)
    return OK
