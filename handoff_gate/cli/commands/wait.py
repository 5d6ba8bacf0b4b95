"""``handoff-gate wait``: block until a handoff is decided; deliver only what was approved.

Everything that can be wrong with the arguments (the run, the handoff, ``--out``) is
found before blocking, so a pipeline never learns of a typo after a person approved.
While blocked, the wait is registered as a waiter on the handoff (reviewers see that a
pipeline is listening) and ``--notify`` runs once. Ctrl-C records ``cancelled`` in the
audit log and exits 130.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from handoff_gate.cli.errors import (
    CHANGED,
    FAIL,
    INTERRUPTED,
    OK,
    TIMED_OUT,
    UsageError,
    one_line,
)
from handoff_gate.cli.inputs import existing_handoff, registry
from handoff_gate.cli.notify import Notifier, notify_env
from handoff_gate.cli.outfile import checked_target, write_payload
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.run import audit
from handoff_gate.gates.run.decision_record import DecisionCorrupt, read_decision
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.run.waiters import registered
from handoff_gate.gates.run.waiting import WaitOutcome, WaitResult, wait
from handoff_gate.gates.store.filesystem import ref_of
from handoff_gate.gates.vocab.safe_text import visible


def _changed_message(handoff_id: str, who: str, result: WaitResult) -> str:
    """Say whether the bytes changed or only the verdict did (e.g. contracts not loaded)."""
    report, decision = result.report, result.decision
    if report is not None and decision is not None and report.sha256 == decision.sha256:
        codes = ", ".join(sorted({f.code.value for f in report.blocking})) or "no payload"
        return (
            f"{handoff_id} was approved by {who} but no longer passes inspection ({codes}); "
            "load the same --schemas as the reviewer. Nothing delivered."
        )
    return f"{handoff_id} changed after it was approved by {who}; nothing delivered"


def blocking_wait(
    run_dir: Path,
    handoff_id: str,
    contracts: Registry,
    *,
    timeout: float | None,
    poll: bool,
    notify: str | None,
) -> WaitResult:
    """``gates.run.waiting.wait`` plus what a blocked pipeline announces: its waiter
    record while undecided, and the ``--notify`` command once.

    A decision that already exists returns at once, without registering or notifying.
    """
    if read_decision(run_dir, handoff_id) is not None:
        return wait(run_dir, handoff_id, registry=contracts, timeout=timeout, poll=poll)
    with registered(run_dir, handoff_id):
        if notify:
            verdict = inspect_in_run(run_dir, handoff_id, contracts).verdict.value
            phase = ref_of(run_dir, handoff_id).phase
            Notifier(notify, notify_env(run_dir, handoff_id, phase, verdict))
        return wait(run_dir, handoff_id, registry=contracts, timeout=timeout, poll=poll)


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    run_dir = existing_handoff(args.run_dir, args.handoff_id)
    target = checked_target(args.out) if args.out else None
    try:
        result = blocking_wait(
            run_dir,
            args.handoff_id,
            contracts,
            timeout=args.timeout,
            poll=args.poll,
            notify=args.notify,
        )
    except KeyboardInterrupt:
        audit.append(
            run_dir,
            audit.Event.WAIT_RETURNED,
            handoff=args.handoff_id,
            outcome=WaitOutcome.CANCELLED.value,
        )
        print(f"cancelled waiting for {args.handoff_id}; nothing delivered", file=sys.stderr)
        return INTERRUPTED
    except (DecisionCorrupt, ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    who = visible(result.decision.reviewer) if result.decision else ""
    if result.outcome is WaitOutcome.APPROVED:
        write_payload(target, json.dumps(result.payload, ensure_ascii=True, indent=2) + "\n")
        return OK
    if result.outcome is WaitOutcome.REJECTED:
        reason = result.decision.reason if result.decision else None
        print(f"rejected by {who}: {visible(reason or '')}", file=sys.stderr)
        return FAIL
    if result.outcome is WaitOutcome.CHANGED:
        print(_changed_message(args.handoff_id, who, result), file=sys.stderr)
        return CHANGED
    print(f"timed out waiting for a decision on {args.handoff_id}", file=sys.stderr)
    return TIMED_OUT
