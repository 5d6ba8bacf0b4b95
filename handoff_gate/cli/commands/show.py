"""``handoff-gate show``: one handoff's field-by-field report (as ``check`` prints it),
then its state, why it ended (withdrawn, expired), its decision (or why the decision
record is unusable) and its waiter."""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.errors import OK, flat
from handoff_gate.cli.inputs import existing_handoff, setup_from
from handoff_gate.cli.report_text import print_report
from handoff_gate.cli.status import signature, to_json
from handoff_gate.gates.standing.caller import CALLER_GAVE_UP
from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.view.tool_line import NAME_CHARS, plain, tool_call_line
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.states import ENDED, HandoffState

#: How much of a tool's own description ``show`` prints (it is the producer's text).
DESCRIPTION_CHARS = 500


def _print_decision(status: Standing, policy_in_force: bool) -> None:
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
        if signature(status, policy_in_force) == "unchecked":
            print("  signed; signature not checked: no policy")
        print(f"  sha256 {d.sha256}  verdict {d.verdict.value}")
        edits = [x for x in (status.decisions or (d,)) if x.edited_sha256 is not None]
        for x in edits:
            print(
                f"  edited by {flat(x.reviewer)}: sha256 {x.sha256} -> "
                f"edited sha256 {x.edited_sha256}"
            )
        if d.category is not None:
            print(f"  category {d.category.value}")
        if d.reason:
            print(f"  reason {flat(d.reason)}")
    envelope = status.report.envelope
    if status.state is HandoffState.APPROVED and envelope is not None and envelope.tool:
        when = f"at {flat(status.delivered)}" if status.delivered else "not yet"
        print(f"delivered: {when}")
    if status.caller_gone:
        print(f"waiter: none: {CALLER_GAVE_UP} (approving it is refused)")
    else:
        print(f"waiter: {'a wait is blocked on it' if status.waiters else 'nobody is waiting'}")


def _print_tool_call(status: Standing) -> None:
    """For a tool call: what it would run, then what the tool says it does."""
    call = tool_call_line(status.report)
    envelope = status.report.envelope
    if call is None or envelope is None or envelope.tool is None:
        return
    print(f"tool call: {call}")
    if envelope.tool.thread:
        print(f"  thread {plain(envelope.tool.thread, NAME_CHARS)}")
    if envelope.tool.description:
        print(f"  description {plain(envelope.tool.description, DESCRIPTION_CHARS)}")


def run(args: argparse.Namespace) -> int:
    setup = setup_from(args)
    run = existing_handoff(args.run_dir, args.handoff_id, setup.store)
    ref = HandoffRef(run, args.handoff_id)
    status = standing(setup.store, ref, setup.contracts, policy=setup.policy)
    if args.json:
        named = status.named
        body = {
            **to_json(status, setup.policy is not None),
            "decision": named.model_dump(mode="json") if named else None,
            "edited": bool(named and named.edited),
            "report": status.report.to_json(),
        }
        print(json.dumps(body, ensure_ascii=True, indent=2))
        return OK
    print_report(f"{status.run_name}/{args.handoff_id}", status.report)
    _print_tool_call(status)
    _print_decision(status, setup.policy is not None)
    return OK
