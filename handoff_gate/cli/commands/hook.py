"""``handoff-gate hook claude-code|codex|gemini RUN``: a coding agent's command hook.

The harness runs this before a tool call with its event on stdin; the call becomes a
tool-call handoff in RUN, and the hook blocks until a reviewer decides, then prints the
harness's own answer (``integrations.coding_agents``). Whatever goes wrong (an event the
harness would not send, a store that cannot be reached, a policy that does not load, an
interrupt) ends in exit 2 with one line on stderr: the one exit code every one of these
harnesses treats as "do not run the tool". Any other exit, or a hook killed by the
harness's own timeout, would let Claude Code and Gemini run it.
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import USAGE, flat, one_line
from handoff_gate.cli.inputs import setup_from
from handoff_gate.cli.interrupt import stop_on_interrupt
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.integrations.coding_agent_submit import submit_event
from handoff_gate.integrations.coding_agents import HARNESSES, Answer, Harness, HookInputError

#: The event around the tool's arguments: its ids, paths and mode, never near this.
EVENT_SLACK = 64 * 1024


def _event_bytes() -> bytes:
    limit = MAX_HANDOFF_BYTES + EVENT_SLACK
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise HookInputError(f"the event on stdin is over {limit} bytes")
    return data


def _answer(args: argparse.Namespace, harness: Harness) -> Answer:
    event = harness.parse(_event_bytes())
    timeout = args.timeout if args.timeout is not None else harness.default_timeout
    setup = setup_from(args)
    try:
        setup.store.create(args.run_dir)
        ref = submit_event(setup, args.run_dir, harness, event)
        # Inspection and the waits load only now, the call stored: a hook reaches its
        # submit having loaded what `submit` does (docs/performance.md, the hook).
        from handoff_gate.gates.gate import Gate
        from handoff_gate.integrations.coding_agent_hook import answer_submitted

        gate = Gate(setup=setup)  # the same configuration; closed below, with its store
        with stop_on_interrupt() as stop:
            return answer_submitted(
                gate, args.run_dir, harness, event, ref, timeout=timeout, stop=stop
            )
    finally:
        setup.close()


def run(args: argparse.Namespace) -> int:
    harness = HARNESSES[args.harness]
    try:
        answer = _answer(args, harness)
    except (Exception, KeyboardInterrupt) as exc:  # fail closed: exit 2 blocks the call
        if isinstance(exc, KeyboardInterrupt):
            what = "interrupted"
        else:
            what = one_line(exc) if str(exc) else type(exc).__name__
        print(f"handoff-gate hook {harness.name}: {what}; the call is blocked", file=sys.stderr)
        return USAGE
    sys.stdout.write(answer.stdout)
    if answer.stderr:
        sys.stderr.write(flat(answer.stderr.rstrip("\n")) + "\n")
    return answer.code
