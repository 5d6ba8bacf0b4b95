"""``handoff-gate show``: one handoff's report, state, decision and waiter.

A reviewer may read ``show`` and then type ``decide``, so every value is printed in full,
wrapped, never cut: what is approved is what was seen. ``--brief`` is ``check``'s first
look instead.
"""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.errors import OK, flat
from handoff_gate.cli.inputs import existing_handoff
from handoff_gate.cli.report_text import Out, payload_sha256, print_report, terminal_width
from handoff_gate.cli.status import signature, to_json
from handoff_gate.gates.gate import CALLER_GAVE_UP, Gate, Standing
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.view.tool_line import NAME_CHARS, plain, tool_call_line
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.states import ENDED, HandoffState

#: How much of a tool's own description ``show --brief`` prints (the producer's text).
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


def _print_tool_call(status: Standing, out: Out) -> None:
    """For a tool call: what it would run, then what the tool says it does. Brief: the
    one line the list shows (each part cut). Full: every part whole; the arguments are
    the fields above, printed in full there, so the line names the call without them."""
    call = tool_call_line(status.report)
    envelope = status.report.envelope
    if call is None or envelope is None or envelope.tool is None:
        return
    tool = envelope.tool
    if not out.full:
        print(f"tool call: {call}")
        if tool.thread:
            print(f"  thread {plain(tool.thread, NAME_CHARS)}")
        if tool.description:
            print(f"  description {plain(tool.description, DESCRIPTION_CHARS)}")
        return
    who = f"{flat(tool.agent)} → " if tool.agent else ""
    out.line(
        f"tool call: {who}{flat(tool.name)}  [{flat(tool.call_id)}]  "
        "(its arguments: the fields above)"
    )
    if tool.thread:
        out.line(f"thread {flat(tool.thread)}", "  ")
    if tool.description:
        out.line(f"description {flat(tool.description)}", "  ")


def _payload_digest(where: RunStore, ref: HandoffRef, status: Standing) -> str | None:
    """The sha256 of the producer's bytes in the handoff ``status`` reports on."""
    try:
        data = where.handoff_bytes(ref.run, ref.id, MAX_HANDOFF_BYTES)
    except (OSError, ValueError):
        return None
    return payload_sha256(data, status.report)


def run(gate: Gate, args: argparse.Namespace) -> int:
    run = existing_handoff(args.run_dir, args.handoff_id, gate.setup.store)
    ref = HandoffRef(run, args.handoff_id)
    status = gate.standing(run, ref)
    if args.json:
        named = status.named
        body = {
            **to_json(status, gate.policy is not None),
            "decision": named.model_dump(mode="json") if named else None,
            "edited": bool(named and named.edited),
            "report": status.report.to_json(),
        }
        print(json.dumps(body, ensure_ascii=True, indent=2))
        return OK
    out = Out() if args.brief else Out(terminal_width())
    name = f"{status.run_name}/{args.handoff_id}"
    digest = _payload_digest(gate.store, ref, status)
    print_report(name, status.report, out, payload_sha256=digest)
    _print_tool_call(status, out)
    _print_decision(status, gate.policy is not None)
    return OK
