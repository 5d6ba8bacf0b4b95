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
from handoff_gate.cli.inputs import existing_run, setup_from
from handoff_gate.gates.audit.log import audit_events, audit_lines
from handoff_gate.gates.audit.verify import verify_run


def run(args: argparse.Namespace) -> int:
    setup = setup_from(args)
    where = setup.store
    run = existing_run(args.run_dir, where)
    if args.verify:
        problems = verify_run(run, where, setup.policy)
        for problem in problems:
            print(flat(problem))
        if not problems:
            print(f"{flat(run)}: the audit log and the run's records agree")
        return FAIL if problems else OK
    events = audit_events(run, where)
    if args.json:
        for event in events:
            print(json.dumps(event, ensure_ascii=True, sort_keys=True))
    else:
        for line in audit_lines(events):
            print(line)
    return OK
