"""``handoff-gate audit RUN [--verify] [--json]``: the run's history, or a check of it.

Printing shows each event in order (when, what, which handoff, who, why), every value
sanitised since anyone who can write the run could have edited the log. ``--verify``
compares the log with the run's records: a broken or re-chained chain, a missing or
emptied log, records without their events and events without their records, a handoff
decided twice, a signature that does not verify. Exit 0 when intact, 1 listing every
problem.
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
