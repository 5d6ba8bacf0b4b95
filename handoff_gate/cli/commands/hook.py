"""``handoff-gate hook claude-code|codex|gemini RUN``: a coding agent's command hook.

Claude Code and Gemini run the tool on any exit but 2, or when the hook is killed by
their own timeout; so whatever goes wrong ends in a deny or exit 2, and everything the
hook does, the Gate's assembly included, comes out of one deadline (``--timeout``, from
its start) that a watchdog keeps (``integrations.coding_agent_deadline``).
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import USAGE, flat, one_line
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.limits import HOOK_EVENT_SLACK, MAX_HANDOFF_BYTES
from handoff_gate.integrations.coding_agent_deadline import (
    Deadline,
    flush_streams,
    process_started,
    signals_deny,
)
from handoff_gate.integrations.coding_agent_submit import submit_event
from handoff_gate.integrations.coding_agents import HARNESSES, Answer, Harness, HookInputError
from handoff_gate.integrations.hook_rules import matching_rule


def _event_bytes() -> bytes:
    limit = MAX_HANDOFF_BYTES + HOOK_EVENT_SLACK  # the event around the tool's arguments
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise HookInputError(f"the event on stdin is over {limit} bytes")
    return data


def _answer(gate: Gate, args: argparse.Namespace, harness: Harness, deadline: Deadline) -> Answer:
    event = harness.parse(_event_bytes())
    deadline.event = event
    setup = gate.setup  # the whole configuration, inside the deadline
    setup.store.create(args.run_dir)
    answer = None
    if matching_rule(setup.policy, harness, event) is not None:  # the fast path
        from handoff_gate.integrations.hook_rules import answer_by_rule

        ref, answer = answer_by_rule(setup, args.run_dir, harness, event)
    else:
        ref = submit_event(setup, args.run_dir, harness, event)
    if answer is None:  # a person decides: the hook's own waiting half loads only now
        from handoff_gate.integrations.coding_agent_hook import answer_submitted

        answer = answer_submitted(gate, harness, event, ref, deadline, args.on_timeout)
    if deadline.signalled is not None:  # stopped: a deny, and the blocking exit with it
        return Answer(answer.stdout, f"handoff-gate hook {harness.name}: {deadline.why}\n", USAGE)
    return answer


def run(gate: Gate, args: argparse.Namespace) -> int:
    started = process_started()  # the deadline counts the interpreter's start-up too
    harness = HARNESSES[args.harness]
    if args.on_timeout == "ask" and not harness.can_hand_over:
        print(
            f"handoff-gate hook {harness.name}: --on-timeout ask hands the call to Claude "
            f"Code's own prompt; {harness.name} has none, so the call is blocked",
            file=sys.stderr,
        )
        return USAGE
    timeout = args.timeout if args.timeout is not None else harness.default_timeout
    deadline = Deadline(harness, timeout, started=started)
    with signals_deny(deadline):
        deadline.start()
        try:
            with gate.locks_until(deadline.locks_until()):
                answer = _answer(gate, args, harness, deadline)
        except (Exception, KeyboardInterrupt) as exc:  # fail closed: exit 2 blocks the call
            if isinstance(exc, KeyboardInterrupt):
                what = "interrupted"
            else:
                what = one_line(exc) if str(exc) else type(exc).__name__
            line = f"handoff-gate hook {harness.name}: {what}; the call is blocked"
            # Once the event is read, the harness's own deny says it too (exit 2 is
            # what every harness acts on; the deny is for one that reads stdout anyway).
            said = "" if deadline.event is None else harness.deny(deadline.event, line).stdout
            answer = Answer(said, line + "\n", USAGE)
        if answer.stderr:
            answer = Answer(answer.stdout, flat(answer.stderr.rstrip("\n")) + "\n", answer.code)
        flush_streams()
        return deadline.answer(answer)
