"""``handoff-gate show``: one handoff's field-by-field report (as ``check`` prints it),
then its state, why it ended (withdrawn, expired), its decision (or why the decision
record is unusable) and its waiter."""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.errors import OK, flat
from handoff_gate.cli.inputs import existing_handoff, policy, registry, store
from handoff_gate.cli.report_text import print_report
from handoff_gate.cli.status import to_json
from handoff_gate.gates.run.standing import Standing, standing
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.states import ENDED


def _print_decision(status: Standing) -> None:
    print(f"state: {status.state.value}")
    d = status.named
    ended = status.state in ENDED
    if ended:
        print(f"ended: {flat(status.problem)}")
    if status.problem and not ended:
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
    print(f"waiter: {'a wait is blocked on it' if status.waiters else 'nobody is waiting'}")


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    where = store(args)
    run = existing_handoff(args.run_dir, args.handoff_id, where)
    status = standing(where, HandoffRef(run, args.handoff_id), contracts, policy=policy(args))
    if args.json:
        named = status.named
        body = {
            **to_json(status),
            "decision": named.model_dump(mode="json") if named else None,
            "report": status.report.to_json(),
        }
        print(json.dumps(body, ensure_ascii=True, indent=2))
        return OK
    print_report(f"{status.run_name}/{args.handoff_id}", status.report)
    _print_decision(status)
    return OK
