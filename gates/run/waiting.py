"""Block a pipeline until a person decides, then hand over only what was approved.

Waiting is event-driven with a periodic re-check as a backstop, which also closes the
gap between "no decision yet" and "watching". Every waiter on a run shares one watcher
of its decisions folder (``store.fs_watch``), so hundreds of concurrent waits cost one
inotify instance; a wake-up is only a hint, the decision file is always re-read.

On approval the handoff is inspected again: its bytes must still hash to what the
reviewer saw, and only the contract-validated ``report.delivered`` is returned. A
timeout or a cancel never approves.

``wait`` blocks its thread; ``wait_async`` is a coroutine that holds no thread of its
own, so cancelling its task stops it at once.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import watchfiles  # noqa: F401 - the watcher's library; tests observe it through this module

from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.run import audit
from handoff_gate.gates.run.decision_record import Decision, read_decision
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.run.waiters import registered
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.filesystem import DECISIONS, HandoffRef, handoff_path
from handoff_gate.gates.vocab.actions import Action

if TYPE_CHECKING:
    from pydantic import BaseModel

    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.vocab.report import Report

#: Re-check at least this often even without events (missed events, network filesystems).
_RECHECK_MS = 250
#: With a ``stop_event``: how often a blocked ``wait`` looks at it.
_STOP_CHECK_MS = 50


class WaitOutcome(StrEnum):
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    CHANGED = "changed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class WaitResult:
    """How a wait ended.

    ``report`` is always the handoff's current inspection report (for a reject too, so
    its findings can go back to the producer). ``payload`` (the validated, allow-listed
    fields) and ``model`` (the contract's model instance) are set only for ``approved``.
    """

    outcome: WaitOutcome
    decision: Decision | None = None
    payload: dict[str, Any] | None = None
    report: Report | None = None
    model: BaseModel | None = None


def _settle(run_dir: Path, handoff_id: str, registry: Registry) -> WaitResult | None:
    decision = read_decision(run_dir, handoff_id)
    if decision is None:
        return None
    report = inspect_in_run(run_dir, handoff_id, registry)
    if decision.action is Action.REJECT:
        return WaitResult(WaitOutcome.REJECTED, decision, report=report)
    if report.sha256 != decision.sha256 or not report.approvable or report.delivered is None:
        return WaitResult(WaitOutcome.CHANGED, decision, report=report)
    return WaitResult(WaitOutcome.APPROVED, decision, report.delivered, report, report.model)


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


def _unsettled(
    run_dir: Path, handoff_id: str, registry: Registry, outcome: WaitOutcome
) -> WaitResult:
    """A timeout or cancel, with the report as it stands (never approving)."""
    report = inspect_in_run(run_dir, handoff_id, registry)
    return _finish(run_dir, handoff_id, WaitResult(outcome, report=report))


class _Waiter:
    """The state both ``wait`` and ``wait_async`` step through, minus the blocking.

    ``step()`` returns a result once decided; otherwise it makes sure the waiter is
    subscribed to the folder a decision will appear in (the run itself until its
    ``decisions/`` folder exists) and returns how long to sleep before the next look.
    """

    def __init__(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        registry: Registry | None,
        timeout: float | None,
        force_polling: bool,
        wake: Callable[[], None],
        on_block: Callable[[Report], None] | None = None,
    ) -> None:
        self.run_dir = Path(run)
        self.handoff_id = ref_or_id.id if isinstance(ref_or_id, HandoffRef) else ref_or_id
        if not isinstance(self.handoff_id, str):
            raise TypeError(f"expected a HandoffRef or an id string, got {type(ref_or_id)}")
        if not handoff_path(self.run_dir, self.handoff_id).is_file():
            raise FileNotFoundError(f"no handoff {self.handoff_id} in {self.run_dir}")
        self.registry = load_registry() if registry is None else registry
        self.deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        self.force_polling = force_polling
        self.wake = wake
        self.prepared = False
        self.subscription: fs_watch.Subscription | None = None
        self.watched: Path | None = None
        self.on_block = on_block
        self.registration = ExitStack()
        self.announced = False

    def step(self) -> WaitResult | float:
        while True:
            result = _settle(self.run_dir, self.handoff_id, self.registry)
            if result is not None:
                return _finish(self.run_dir, self.handoff_id, result)
            if not self.prepared:  # then settle again: the decision may have come meanwhile
                _prepare(self.run_dir, self.handoff_id, self.registry)
                self.prepared = True
                continue
            if self.deadline is not None and self.deadline <= time.monotonic():
                return self.unsettled(WaitOutcome.TIMEOUT)  # a look, not a wait: no watcher
            if not self.announced:
                self._announce()
            decisions = self.run_dir / DECISIONS
            target = decisions if decisions.is_dir() else self.run_dir
            if target != self.watched:  # subscribed before the next look: nothing is missed
                self._unsubscribe()
                self.subscription = fs_watch.subscribe(
                    target,
                    self.wake,
                    name=f"{self.handoff_id}.json" if target == decisions else None,
                    force_polling=self.force_polling,
                )
                self.watched = target
                continue
            if self.deadline is None:
                return _RECHECK_MS / 1000
            left = self.deadline - time.monotonic()
            if left <= 0:
                return self.unsettled(WaitOutcome.TIMEOUT)
            return min(left, _RECHECK_MS / 1000)

    def _announce(self) -> None:
        """The wait is about to block: say so where reviewers look (a waiter record) and
        to whoever asked to be told (``on_block``, with the handoff's current report)."""
        self.announced = True
        self.registration.enter_context(registered(self.run_dir, self.handoff_id))
        if self.on_block is not None:
            self.on_block(inspect_in_run(self.run_dir, self.handoff_id, self.registry))

    def unsettled(self, outcome: WaitOutcome) -> WaitResult:
        self.close()
        return _unsettled(self.run_dir, self.handoff_id, self.registry, outcome)

    def close(self) -> None:
        self.registration.close()
        self._unsubscribe()

    def _unsubscribe(self) -> None:
        if self.subscription is not None:
            self.subscription.close()
            self.subscription = None
            self.watched = None


def wait(
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    stop_event: threading.Event | None = None,
    on_block: Callable[[Report], None] | None = None,
) -> WaitResult:
    """Return once the handoff is decided, ``timeout`` seconds pass, or ``stop_event`` is set.

    Returns at once if the decision already exists. ``registry=None`` loads the built-in
    contracts plus ``$HANDOFF_GATE_SCHEMAS``. ``poll=True`` forces polling, for network
    filesystems that deliver no change events. While blocked, the wait is recorded as a
    waiter on the handoff (``gates.run.waiters``), and ``on_block`` is called once with
    the handoff's current report. Raises ``FileNotFoundError`` when the handoff does not
    exist, ``DecisionCorrupt`` for an unusable decision file.
    """
    woken = threading.Event()
    waiter = _Waiter(run, ref_or_id, registry, timeout, poll, woken.set, on_block)
    try:
        while True:
            step = waiter.step()
            if isinstance(step, WaitResult):
                return step
            if stop_event is not None:
                step = min(step, _STOP_CHECK_MS / 1000)
                if stop_event.is_set():
                    return waiter.unsettled(WaitOutcome.CANCELLED)
            woken.wait(step)
            woken.clear()
    finally:
        waiter.close()


async def wait_async(
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    on_block: Callable[[Report], None] | None = None,
) -> WaitResult:
    """``wait`` for asyncio: no thread of its own, and cancelling the task stops it at once.

    Many concurrent calls share one watcher thread per run; the checks between
    wake-ups read a few small files on the event loop.
    """
    import asyncio  # here, not at the top: ``handoff-gate wait`` must not pay for it

    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(woken.set)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            return

    waiter = _Waiter(run, ref_or_id, registry, timeout, poll, wake, on_block)
    try:
        while True:
            step = waiter.step()
            if isinstance(step, WaitResult):
                return step
            try:
                async with asyncio.timeout(step):
                    await woken.wait()
            except TimeoutError:
                pass
            woken.clear()
    finally:
        waiter.close()
