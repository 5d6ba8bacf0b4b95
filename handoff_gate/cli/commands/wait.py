"""``handoff-gate wait``: block until a handoff is decided; deliver only what was approved.

Everything that can be wrong with the arguments (the run, the handoff, ``--out``) is
found before blocking, so a pipeline never learns of a typo after a person approved.
A decided handoff (every resumed pipeline) is answered by the wait's first look, with no
subscription, no waiter record and no ``--notify``; the notifier's module is imported
only when the wait blocks. This module and ``cli.main`` are where the CLI defers loading.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from handoff_gate.cli.errors import (
    ALREADY_DELIVERED,
    CHANGED,
    EXPIRED,
    FAIL,
    INTERRUPTED,
    OK,
    TIMED_OUT,
    WITHDRAWN,
    UsageError,
    one_line,
)
from handoff_gate.cli.inputs import existing_handoff
from handoff_gate.cli.outfile import STDOUT, checked_target, write_payload
from handoff_gate.gates.gate import DecisionCorrupt, Gate, WaitOutcome, WaitResult
from handoff_gate.gates.store.base import FolderMechanics, RunStore
from handoff_gate.gates.view.delivery import delivered_text, payload_text
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import visible


def _changed_message(handoff_id: str, who: str, result: WaitResult, expected: str) -> str:
    """Say whether the bytes are not the ones submitted (``--sha256``), changed after the
    decision, or only the verdict did (e.g. contracts not loaded)."""
    report, decision = result.report, result.decision
    if expected and (report is None or report.sha256 != expected):
        now = report.sha256 if report is not None and report.sha256 else "unreadable"
        return (
            f"{handoff_id} is not the handoff that was submitted: its sha256 is {now}, "
            f"not {expected} (--sha256); nothing delivered"
        )
    if report is not None and decision is not None and report.sha256 == decision.sha256:
        codes = ", ".join(sorted({f.code.value for f in report.blocking})) or "no payload"
        return (
            f"{handoff_id} was approved by {who} but no longer passes inspection ({codes}); "
            "load the same --schemas as the reviewer. Nothing delivered."
        )
    return f"{handoff_id} changed after it was approved by {who}; nothing delivered"


def _notifier(
    run_label: str, handoff_id: str, notify: str | None
) -> Callable[[Report], None] | None:
    """What ``--notify`` runs once the wait starts blocking (never for a decided handoff)."""
    if not notify:
        return None
    phase = handoff_id.split("-", 1)[1]

    def announce(report: Report) -> None:
        from handoff_gate.cli.notify import notify as run_notify  # only a wait that blocks

        run_notify(notify, run_label, handoff_id, phase, report.verdict.value)

    return announce


@contextmanager
def stop_on_interrupt() -> Iterator[threading.Event]:
    """Ctrl-C (and SIGTERM) end the wait through its stop event: it then returns
    ``cancelled`` by the same path as any other outcome, logged once, with its waiter
    record removed, instead of an exception landing wherever the main thread happens to be.

    The caller's handlers are put back afterwards (``main`` may run inside a caller's
    process). Off the main thread no handler can be set; signals are its owner's then.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(sig, handler)


def result_json(result: WaitResult) -> dict[str, Any]:
    """``wait --json``: how the wait ended for scripts that must not parse prose; its keys
    are a contract (docs/protocol.md). ``payload`` only for an approval."""
    approved = result.outcome is WaitOutcome.APPROVED
    return {
        "outcome": result.outcome.value,
        "payload": result.payload if approved else None,
        "decision": result.decision.model_dump(mode="json") if result.decision else None,
        "report": result.report.to_json() if result.report is not None else None,
        "dropped_keys": list(result.dropped_keys),
        "defaulted": list(result.defaulted),
        "edited": result.edited,
        "edited_sha256": result.edited_sha256,
        "original_sha256": result.original_sha256 if approved else None,
        "ended": result.ended or None,
    }


def run(gate: Gate, args: argparse.Namespace) -> int:
    if args.json and args.out == STDOUT:
        raise UsageError("--json prints the result on stdout; give --out a file, or leave it out")
    where = gate.setup.store  # the whole configuration: the policy's pin before any module
    run = existing_handoff(args.run_dir, args.handoff_id, where)
    if gate.policy is None:
        print(gate.no_policy_warning(), file=sys.stderr)
    else:
        _veto_check(where, run, strict=getattr(args, "strict", False))
    with checked_target(args.out) as target:
        try:
            with stop_on_interrupt() as stop:
                result = gate.wait(
                    run,
                    args.handoff_id,
                    expected_sha256=args.sha256 or "",
                    timeout=args.timeout,
                    poll=args.poll,
                    stop_event=stop,
                    on_block=_notifier(gate.store.run_label(run), args.handoff_id, args.notify),
                    redeliver=args.redeliver,
                )
        except (DecisionCorrupt, ValueError, OSError) as exc:
            raise UsageError(one_line(exc)) from exc
        if result.outcome is WaitOutcome.APPROVED:
            if result.edited and result.payload is not None:
                text: str | None = payload_text(result.payload)
            else:
                text = delivered_text(result.report) if result.report is not None else None
            if text is None:  # an approval always carries an approvable report: fail closed
                raise UsageError(f"{args.handoff_id}: approved, but nothing can be delivered")
            if target is not None or not args.json:
                write_payload(target, text)
            if result.edited:
                print(_edited_message(args.handoff_id, result), file=sys.stderr)
            if args.json:
                print(json.dumps(result_json(result), ensure_ascii=True, indent=2))
            return OK
    if args.json:
        print(json.dumps(result_json(result), ensure_ascii=True, indent=2))
    return _not_delivered(args.handoff_id, result, args.sha256 or "")


def _veto_check(where: RunStore, run: str, *, strict: bool) -> None:
    """Say once (``--strict``: exit 2) when this account could remove a signed reject."""
    exposed = where.veto_exposure(run) if isinstance(where, FolderMechanics) else None
    if exposed is None:
        return
    message = (
        f"a same-account agent can remove a reviewer's veto ({visible(exposed)}); make the "
        "run with `handoff-gate init RUN --pipeline USER --reviewers GROUP`, or keep runs in "
        "PostgreSQL (--store)"
    )
    if strict:
        raise UsageError(f"--strict: {message}")
    print(f"handoff-gate: {message}", file=sys.stderr)


def _edited_message(handoff_id: str, result: WaitResult) -> str:
    """Said on stderr when the payload delivered is a reviewer's edit, naming both digests."""
    who = ", ".join(visible(d.reviewer) for d in result.decisions) or "?"
    return (
        f"handoff-gate: {handoff_id}: delivered the edit approved by {who} "
        f"(sha256 {result.original_sha256} -> edited sha256 {result.edited_sha256})"
    )


def _not_delivered(handoff_id: str, result: WaitResult, expected: str) -> int:
    """Say why nothing was delivered, and return the exit code that says it."""
    if result.outcome is WaitOutcome.CANCELLED:
        print(f"cancelled waiting for {handoff_id}; nothing delivered", file=sys.stderr)
        return INTERRUPTED
    who = visible(result.decision.reviewer) if result.decision else ""
    if result.outcome is WaitOutcome.REJECTED:
        reason = result.decision.reason if result.decision else None
        print(f"rejected by {who}: {visible(reason or '')}", file=sys.stderr)
        return FAIL
    if result.outcome is WaitOutcome.CHANGED:
        print(_changed_message(handoff_id, who, result, expected), file=sys.stderr)
        return CHANGED
    if result.outcome is WaitOutcome.ALREADY_DELIVERED:
        print(f"{visible(result.ended)} (--redeliver to deliver it again)", file=sys.stderr)
        return ALREADY_DELIVERED
    if result.outcome in (WaitOutcome.EXPIRED, WaitOutcome.WITHDRAWN):
        print(f"{visible(result.ended)}; nothing delivered", file=sys.stderr)
        return EXPIRED if result.outcome is WaitOutcome.EXPIRED else WITHDRAWN
    print(f"timed out waiting for a decision on {handoff_id}", file=sys.stderr)
    return TIMED_OUT
