"""Block a pipeline until a person decides, then hand over only what was approved.

Waiting is event-driven with a periodic re-check as a backstop, which also closes the
gap between "no decision yet" and "watching". On the filesystem every waiter on a run
shares one watcher of its decisions folder (``store.fs_watch``), so hundreds of
concurrent waits cost one inotify instance; on a database store the wake-ups come from
the store (``LISTEN/NOTIFY``). Either way a wake-up is only a hint: the decision records
are always re-read and settled (``run.quorum``), under the policy when there is one.

On approval the handoff is inspected again: its bytes must still hash to what the
reviewers approved, and only the contract-validated ``report.delivered`` is returned. A
timeout or a cancel never approves.

``wait`` blocks its thread; ``run.waiting_async.wait_async`` steps the same ``Waiter``
from a coroutine.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import watchfiles  # noqa: F401 - the watcher's library; tests observe it through this module

from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.run import audit, decision_record
from handoff_gate.gates.run.decision_record import Decision
from handoff_gate.gates.run.quorum import Outcome, Settlement, record_refusals, settle
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.run.waiters import registered
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.base import ChangeFeed, RunStore, StoreUnavailable
from handoff_gate.gates.store.filesystem import DECISIONS, HandoffRef, handoff_path
from handoff_gate.gates.store.select import store_for
from handoff_gate.gates.vocab.report import Report

if TYPE_CHECKING:
    from pydantic import BaseModel

    from handoff_gate.gates.trust.policy import Policy

#: Re-check at least this often even without events (missed events, network filesystems).
_RECHECK_MS = 250
#: With a ``stop_event``: how often a blocked ``wait`` looks at it.
_STOP_CHECK_MS = 50
#: A database store that cannot be reached is tried again after this long, doubling.
_RETRY_S, _MAX_RETRY_S = 0.1, 5.0


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
    ``decision`` is the deciding record (the reject, or the first approval);
    ``decisions`` every record that counted (all approvals of a quorum).
    """

    outcome: WaitOutcome
    decision: Decision | None = None
    payload: dict[str, Any] | None = None
    report: Report | None = None
    model: BaseModel | None = None
    decisions: tuple[Decision, ...] = ()


def print_refusal(line: str) -> None:
    """The default for ``on_refused``: an ignored decision record is said on stderr."""
    print(f"handoff-gate: {line}", file=sys.stderr)


class Waiter:
    """The state ``wait`` and ``waiting_async.wait_async`` step through, minus the blocking.

    ``step()`` returns a result once decided; otherwise it makes sure the waiter will be
    woken (a filesystem subscription to the folder a decision will appear in) and
    returns how long to sleep before the next look.
    """

    def __init__(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        registry: Registry | None,
        timeout: float | None,
        force_polling: bool,
        wake: Callable[[], None],
        on_block: Callable[[Report], None] | None,
        policy: Policy | None,
        store: RunStore | None,
        on_refused: Callable[[str], None],
    ) -> None:
        if not isinstance(run, str | os.PathLike):
            raise TypeError(f"run must be a path or a run id, not {type(run).__name__}")
        self.run = os.fspath(run)
        self.handoff_id = ref_or_id.id if isinstance(ref_or_id, HandoffRef) else ref_or_id
        if not isinstance(self.handoff_id, str):
            raise TypeError(f"expected a HandoffRef or an id string, got {type(ref_or_id)}")
        self.store = store or store_for()
        if not self._exists():
            raise FileNotFoundError(f"no handoff {self.handoff_id} in {self.run}")
        self.registry = load_registry() if registry is None else registry
        self.policy = policy
        self.deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        self.force_polling = force_polling
        self.wake = wake
        self.on_block = on_block
        self.on_refused = on_refused
        self.refusals_seen: set[str] = set()
        self.prepared = False
        self.announced = False
        self.registration = ExitStack()
        self.subscription: fs_watch.Subscription | None = None
        self.watched: Path | None = None

    def _exists(self) -> bool:
        if self.store.is_local:
            return handoff_path(Path(self.run), self.handoff_id).is_file()
        return self.handoff_id in self.store.handoff_ids(self.run)

    def _report(self) -> Report:
        return inspect_in_run(
            self.run, self.handoff_id, self.registry, policy=self.policy, store=self.store
        )

    def settled(self) -> WaitResult | None:
        """The result the decision records allow now, refusals said once; ``None``: go on."""
        found = settle(self.store, self.run, self.handoff_id, self.registry, self.policy)
        for line in record_refusals(
            self.store, self.run, self.handoff_id, found, self.refusals_seen
        ):
            self.on_refused(line)
        if found.outcome is None:
            return None
        return self._finish(self._result(found))

    def _result(self, found: Settlement) -> WaitResult:
        decision = found.decisions[0] if found.decisions else None
        report = found.report or self._report()
        if found.outcome is Outcome.APPROVED:
            return WaitResult(
                WaitOutcome.APPROVED,
                decision,
                report.delivered,
                report,
                report.model,
                found.decisions,
            )
        outcome = WaitOutcome.REJECTED if found.outcome is Outcome.REJECTED else WaitOutcome.CHANGED
        return WaitResult(outcome, decision, report=report, decisions=found.decisions)

    def step(self) -> WaitResult | float:
        while True:
            result = self.settled()
            if result is not None:
                return result
            if not self.prepared:  # then settle again: the decision may have come meanwhile
                self._prepare()
                continue
            if self.deadline is not None and self.deadline <= time.monotonic():
                return self.unsettled(WaitOutcome.TIMEOUT)  # a look, not a wait: no watcher
            if not self.announced:
                self._announce()
            if self.store.is_local and self._subscribe():
                continue  # subscribed before the next look: nothing is missed
            if self.deadline is None:
                return _RECHECK_MS / 1000
            return min(max(self.deadline - time.monotonic(), 0.0), _RECHECK_MS / 1000)

    def _prepare(self) -> None:
        """Do the one-time work of a pickup while nobody is waiting on it yet: loading
        inspection and building the contract's and the decision's validators (all deferred
        until first use) would otherwise add about 30 ms between a decision and its delivery."""
        self._report()
        decision_record.prepare()
        if self.policy is not None:
            self.policy.signers.prepare()
        self.prepared = True

    def _subscribe(self) -> bool:
        """Watch where the decision will appear next; ``True`` if that changed.

        Without a policy that is the handoff's own file in ``decisions/``. Under one,
        each approver's record is a file in ``decisions/{id}/``: that folder is watched
        once it exists, and ``decisions/`` for its creation until then (a change inside a
        subfolder is not a change of ``decisions/`` itself). Before any decision, the run.
        """
        run_dir = Path(self.run)
        decisions = run_dir / DECISIONS
        principals = decisions / self.handoff_id
        if self.policy is not None and principals.is_dir():
            target, name = principals, None
        elif decisions.is_dir():
            target = decisions
            name = self.handoff_id if self.policy is not None else f"{self.handoff_id}.json"
        else:
            target, name = run_dir, None
        if target == self.watched:
            return False
        self._unsubscribe()
        self.subscription = fs_watch.subscribe(
            target, self.wake, name=name, force_polling=self.force_polling
        )
        self.watched = target
        return True

    def _announce(self) -> None:
        """The wait is about to block: say so where reviewers look (a waiter record, on
        the filesystem) and to whoever asked to be told (``on_block``, with the report).
        A database store also rehearses the ``wait_returned`` append now, rolled back, so
        that the real one after the decision does not pay the connection's first write
        (about 3 ms)."""
        self.announced = True
        if self.store.is_local:
            self.registration.enter_context(registered(Path(self.run), self.handoff_id))
        else:
            audit.rehearse(
                self.run,
                audit.Event.WAIT_RETURNED,
                store=self.store,
                handoff=self.handoff_id,
                outcome=WaitOutcome.APPROVED.value,
            )
        if self.on_block is not None:
            self.on_block(self._report())

    def block(self, seconds: float, woken: threading.Event) -> None:
        """Sleep until woken or ``seconds`` pass: the shared watcher, or the store."""
        if self.store.is_local:
            woken.wait(seconds)
            woken.clear()
            return
        if not isinstance(self.store, ChangeFeed):
            raise TypeError(f"{type(self.store).__name__} cannot wake a waiter")
        self.store.wait_for_change(self.run, seconds)

    def unsettled(self, outcome: WaitOutcome) -> WaitResult:
        """A timeout or cancel, with the report as it stands (never approving)."""
        self.close()
        return self._finish(WaitResult(outcome, report=self._report()))

    def _finish(self, result: WaitResult) -> WaitResult:
        audit.append(
            self.run,
            audit.Event.WAIT_RETURNED,
            store=self.store,
            handoff=self.handoff_id,
            outcome=result.outcome.value,
        )
        return result

    def close(self) -> None:
        self.registration.close()
        self._unsubscribe()

    def _unsubscribe(self) -> None:
        if self.subscription is not None:
            self.subscription.close()
            self.subscription = None
            self.watched = None


def _unreachable(waiter: Waiter, exc: StoreUnavailable, pause: float) -> float:
    """A database that went away mid-wait: try again with backoff until the deadline,
    then let the caller see the failure (``handoff-gate wait`` exits 2 with it)."""
    if waiter.deadline is not None and time.monotonic() + pause > waiter.deadline:
        raise exc
    time.sleep(pause)
    return min(pause * 2, _MAX_RETRY_S)


def wait(
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    stop_event: threading.Event | None = None,
    on_block: Callable[[Report], None] | None = None,
    policy: Policy | None = None,
    store: RunStore | None = None,
    on_refused: Callable[[str], None] = print_refusal,
) -> WaitResult:
    """Return once the handoff is decided, ``timeout`` seconds pass, or ``stop_event`` is set.

    Returns at once if the decision already exists. ``registry=None`` loads the built-in
    contracts plus ``$HANDOFF_GATE_SCHEMAS``; ``store=None`` the store
    ``$HANDOFF_GATE_STORE`` names (the filesystem when unset). Under a ``policy`` only
    signed decisions of its approvers count (``run.quorum``); ignored records are logged
    and passed to ``on_refused`` once each. ``poll=True`` forces polling, for network
    filesystems that deliver no change events. While blocked, the wait is recorded as a
    waiter on the handoff (``gates.run.waiters``), and ``on_block`` is called once with
    the handoff's current report. Raises ``FileNotFoundError`` when the handoff does not
    exist, ``DecisionCorrupt`` for an unusable decision file, ``NoRule`` when the policy
    does not cover the phase.
    """
    woken = threading.Event()
    waiter = Waiter(
        run,
        ref_or_id,
        registry=registry,
        timeout=timeout,
        force_polling=poll,
        wake=woken.set,
        on_block=on_block,
        policy=policy,
        store=store,
        on_refused=on_refused,
    )
    pause = _RETRY_S
    try:
        while True:
            try:
                step = waiter.step()
                if isinstance(step, WaitResult):
                    return step
                if stop_event is not None:
                    step = min(step, _STOP_CHECK_MS / 1000)
                    if stop_event.is_set():
                        return waiter.unsettled(WaitOutcome.CANCELLED)
                waiter.block(step, woken)
                pause = _RETRY_S
            except StoreUnavailable as exc:
                pause = _unreachable(waiter, exc, pause)
    finally:
        waiter.close()
