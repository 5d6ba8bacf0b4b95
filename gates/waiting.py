"""Block a pipeline until a person decides, then hand over only what was approved.

Waiting is event-driven (watchfiles on the decisions folder) with a periodic re-check
as a backstop, which also closes the gap between "no decision yet" and "watching".
On approval the handoff is inspected again: its bytes must still hash to what the
reviewer saw, and only the contract-validated ``report.delivered`` is returned. A
timeout or a cancel never approves.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import watchfiles

from handoff_gate.gates import audit
from handoff_gate.gates.decisions import Action, Decision, read_decision
from handoff_gate.gates.store import DECISIONS, handoff_path, inspect_in_run

if TYPE_CHECKING:
    from handoff_gate.gates.registry import Registry
    from handoff_gate.gates.report import Report

#: watchfiles batching: report a change after ``_STEP_MS`` of quiet, at most ``_DEBOUNCE_MS``.
_STEP_MS = 5
_DEBOUNCE_MS = 50
#: Re-check at least this often even without events (missed events, network filesystems).
_RECHECK_MS = 250
#: With ``poll=True``: how often the folder is listed (one small directory, so cheap).
_POLL_MS = 100


class WaitOutcome(StrEnum):
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    CHANGED = "changed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class WaitResult:
    """``payload`` is set only for ``approved``: the validated, allow-listed fields."""

    outcome: WaitOutcome
    decision: Decision | None = None
    payload: dict[str, Any] | None = None
    report: Report | None = None


def _settle(run_dir: Path, handoff_id: str, registry: Registry) -> WaitResult | None:
    decision = read_decision(run_dir, handoff_id)
    if decision is None:
        return None
    if decision.action is Action.REJECT:
        return WaitResult(WaitOutcome.REJECTED, decision)
    report = inspect_in_run(run_dir, handoff_id, registry)
    if report.sha256 != decision.sha256 or not report.approvable or report.delivered is None:
        return WaitResult(WaitOutcome.CHANGED, decision, report=report)
    return WaitResult(WaitOutcome.APPROVED, decision, report.delivered, report)


def _prepare(run_dir: Path, handoff_id: str, registry: Registry) -> None:
    """Do the one-time work of a pickup while nobody is waiting on it yet: loading
    inspection and building the contract's and the decision's validators (all deferred
    until first use) would otherwise add about 30 ms between a decision and its delivery."""
    inspect_in_run(run_dir, handoff_id, registry)
    Decision.model_rebuild()


def _finish(run_dir: Path, handoff_id: str, result: WaitResult) -> WaitResult:
    audit.append(
        run_dir, audit.Event.WAIT_RETURNED, handoff=handoff_id, outcome=result.outcome.value
    )
    return result


def wait(
    run_dir: Path,
    handoff_id: str,
    *,
    registry: Registry,
    timeout: float | None = None,
    poll: bool = False,
    stop_event: threading.Event | None = None,
) -> WaitResult:
    """Return once ``handoff_id`` is decided, ``timeout`` seconds pass, or ``stop_event`` is set.

    Returns at once if the decision already exists. ``poll=True`` forces polling, for
    network filesystems that deliver no change events. Raises ``FileNotFoundError``
    when the handoff does not exist, ``DecisionCorrupt`` for an unusable decision file.
    """
    if not handoff_path(run_dir, handoff_id).is_file():
        raise FileNotFoundError(f"no handoff {handoff_id} in {run_dir}")
    deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
    recheck = _RECHECK_MS if timeout is None else max(1, min(_RECHECK_MS, int(timeout * 1000)))
    prepared = False
    while True:
        result = _settle(run_dir, handoff_id, registry)
        if result is not None:
            return _finish(run_dir, handoff_id, result)
        if not prepared:  # then settle again: the decision may have come meanwhile
            _prepare(run_dir, handoff_id, registry)
            prepared = True
            continue
        decisions = run_dir / DECISIONS
        watching_decisions = decisions.is_dir()
        for _changes in watchfiles.watch(
            decisions if watching_decisions else run_dir,
            step=_STEP_MS,
            debounce=_DEBOUNCE_MS,
            rust_timeout=recheck,
            yield_on_timeout=True,
            stop_event=stop_event,
            force_polling=poll,
            poll_delay_ms=min(recheck, _POLL_MS),
            recursive=False,
        ):
            result = _settle(run_dir, handoff_id, registry)
            if result is not None:
                return _finish(run_dir, handoff_id, result)
            if deadline is not None and time.monotonic() >= deadline:
                return _finish(run_dir, handoff_id, WaitResult(WaitOutcome.TIMEOUT))
            if stop_event is not None and stop_event.is_set():
                break
            if not watching_decisions and decisions.is_dir():
                break
        if stop_event is not None and stop_event.is_set():
            return _finish(run_dir, handoff_id, WaitResult(WaitOutcome.CANCELLED))
