"""``handoff-gate wait``: block until a handoff is decided; deliver only what was approved.

Everything that can be wrong with the arguments (the run, the handoff, ``--out``) is
found before blocking, so a pipeline never learns of a typo after a person approved.
While blocked, the wait is registered as a waiter on the handoff (reviewers see that a
pipeline is listening) and ``--notify`` runs once. Ctrl-C or SIGTERM records
``cancelled`` in the audit log and exits 130.

A decided handoff (every resumed pipeline) is answered by a first look
(``gates.run.pickup``); only a wait that must block imports the blocking wait, with the
change watcher and the notifier (about 10 ms of start-up that a decided handoff never
needs). This module and ``cli.main`` are where the CLI defers loading.
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
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import (
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
from handoff_gate.cli.inputs import existing_handoff, policy, registry, store
from handoff_gate.cli.outfile import checked_target, write_payload
from handoff_gate.gates.run.decision_record import DecisionCorrupt
from handoff_gate.gates.run.pickup import Pickup, WaitOutcome, WaitResult, print_refusal
from handoff_gate.gates.run.quorum import no_policy_warning
from handoff_gate.gates.store.base import RunStore, StoreUnavailable
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import visible

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.trust.policy import Policy


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


def _notifier(
    run_label: str, handoff_id: str, notify: str | None
) -> Callable[[Report], None] | None:
    """What ``--notify`` runs once the wait starts blocking (never for a decided handoff)."""
    if not notify:
        return None
    from handoff_gate.cli.notify import Notifier, notify_env  # only a wait that blocks

    phase = handoff_id.split("-", 1)[1]

    def announce(report: Report) -> None:
        Notifier(notify, notify_env(run_label, handoff_id, phase, report.verdict.value))

    return announce


@contextmanager
def _stop_on_interrupt() -> Iterator[threading.Event]:
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


def _looked(pickup: Pickup) -> WaitResult | None:
    """The result when the handoff is decided already, else ``None``. A database that
    cannot be reached just now is left to the blocking wait, which retries it until the
    deadline, as it does for every later look."""
    try:
        return pickup.settled()
    except StoreUnavailable:
        return None


def _blocked(pickup: Pickup, args: argparse.Namespace, stop: threading.Event) -> WaitResult:
    """No decision yet: load the blocking wait (and with it the watcher) and go on from
    the first look, keeping its deadline and the refusals it already reported."""
    from handoff_gate.gates.run.waiting import wait_after  # only a wait that blocks

    return wait_after(
        pickup,
        poll=args.poll,
        stop_event=stop,
        on_block=_notifier(pickup.store.run_label(pickup.run), args.handoff_id, args.notify),
    )


def _waited(
    run: str,
    args: argparse.Namespace,
    contracts: Registry,
    rules: Policy | None,
    where: RunStore,
    stop: threading.Event,
) -> WaitResult:
    """Look once; block (loading the watcher) only if the handoff is undecided."""
    pickup = Pickup(
        run,
        args.handoff_id,
        registry=contracts,
        timeout=args.timeout,
        policy=rules,
        store=where,
        on_refused=print_refusal,
    )
    result = _looked(pickup)
    if result is None:
        result = _blocked(pickup, args, stop)
    return result


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    where = store(args)
    run = existing_handoff(args.run_dir, args.handoff_id, where)
    rules = policy(args)
    if rules is None:
        print(no_policy_warning(where), file=sys.stderr)
    with checked_target(args.out) as target:
        try:
            with _stop_on_interrupt() as stop:
                result = _waited(run, args, contracts, rules, where, stop)
        except (DecisionCorrupt, ValueError, OSError) as exc:
            raise UsageError(one_line(exc)) from exc
        if result.outcome is WaitOutcome.APPROVED:
            write_payload(target, json.dumps(result.payload, ensure_ascii=True, indent=2) + "\n")
            return OK
    return _not_delivered(args.handoff_id, result)


def _not_delivered(handoff_id: str, result: WaitResult) -> int:
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
        print(_changed_message(handoff_id, who, result), file=sys.stderr)
        return CHANGED
    if result.outcome in (WaitOutcome.EXPIRED, WaitOutcome.WITHDRAWN):
        print(f"{visible(result.ended)}; nothing delivered", file=sys.stderr)
        return EXPIRED if result.outcome is WaitOutcome.EXPIRED else WITHDRAWN
    print(f"timed out waiting for a decision on {handoff_id}", file=sys.stderr)
    return TIMED_OUT
