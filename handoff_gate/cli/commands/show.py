"""``handoff-gate show``: one handoff's field-by-field report (as ``check`` prints it),
then its state, its decision (or why the decision record is unusable) and its waiter."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from handoff_gate.cli.errors import OK, flat
from handoff_gate.cli.inputs import existing_handoff, policy, registry, store
from handoff_gate.cli.report_text import print_report
from handoff_gate.cli.status import HandoffStatus, status_of
from handoff_gate.gates.store.filesystem import ref_of


def _print_decision(status: HandoffStatus) -> None:
    print(f"state: {status.state.value}")
    d = status.decision
    if status.problem is not None:
        print(f"decision: UNUSABLE  {flat(status.problem)}")
    elif d is None:
        print("decision: none")
    else:
        done = "approved" if d.action.value == "approve" else "rejected"
        print(f"decision: {done} by {flat(d.reviewer)} at {flat(d.decided_at)}")
        print(f"  sha256 {d.sha256}  verdict {d.verdict.value}")
        if d.category is not None:
            print(f"  category {d.category.value}")
        if d.reason:
            print(f"  reason {flat(d.reason)}")
    print(f"waiter: {'a wait is blocked on it' if status.waiter else 'nobody is waiting'}")


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    where = store(args)
    run = existing_handoff(args.run_dir, args.handoff_id, where)
    status = status_of(
        ref_of(Path(run), args.handoff_id), contracts, store=where, policy=policy(args)
    )
    if args.json:
        body = {
            **status.to_json(),
            "decision": status.decision.model_dump(mode="json") if status.decision else None,
            "report": status.report.to_json(),
        }
        print(json.dumps(body, ensure_ascii=True, indent=2))
        return OK
    print_report(f"{status.run}/{args.handoff_id}", status.report)
    _print_decision(status)
    return OK
