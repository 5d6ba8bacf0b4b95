"""Block a pipeline until a person decides, then hand over only what was approved.

Waiting is event-driven (``RunStore.subscribe``) with a periodic re-check as a
backstop, which also closes the gap between "no decision yet" and "watching". A wake-up
is only a hint: the records are always re-read and settled by ``deliver.pickup``, which
this module only adds the blocking to. A timeout or a cancel never approves.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import TypedDict

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.deliver.pickup import Pickup, WaitOutcome, WaitResult
from handoff_gate.gates.deliver.refusal import print_refusal
from handoff_gate.gates.store.base import RunStore, StoreUnavailable, Subscription, watchable
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report

#: Re-check at least this often even without events (missed events, network filesystems).
_RECHECK_MS = 250
#: With a ``stop_event``: how often a blocked ``wait`` looks at it.
_STOP_CHECK_MS = 50
#: A database store that cannot be reached is tried again after this long, doubling.
_RETRY_S, _MAX_RETRY_S = 0.1, 5.0


class Waiter:
    """The state ``wait`` and ``waiting_async.wait_async`` step through, minus the
    blocking: ``step()`` returns a result once decided, else how long to sleep."""

    def __init__(
        self,
        pickup: Pickup,
        *,
        force_polling: bool,
        wake: Callable[[], None],
        on_block: Callable[[Report], None] | None,
    ) -> None:
        """Go on from ``pickup``, which may have looked already: its deadline stands and
        the refusals it reported are not reported again."""
        self.pickup = pickup
        self.force_polling = force_polling
        self.wake = wake
        self.on_block = on_block
        self.announced = False
        self.registration = ExitStack()
        self.subscription: Subscription | None = None

    @property
    def store(self) -> RunStore:
        return self.pickup.store

    @property
    def deadline(self) -> float | None:
        return self.pickup.deadline

    def step(self) -> WaitResult | float:
        while True:
            result = self.pickup.settled()
            if result is not None:
                return result
            if self.pickup.expired():
                return self.unsettled(WaitOutcome.TIMEOUT)  # a look, not a wait: no watcher
            if not self.announced:
                self._announce()
                continue  # then settle again: the decision may have come meanwhile
            if self._subscribed().rearm():
                continue  # subscribed before the next look: nothing is missed
            if self.deadline is None:
                return _RECHECK_MS / 1000
            return min(max(self.deadline - time.monotonic(), 0.0), _RECHECK_MS / 1000)

    def _subscribed(self) -> Subscription:
        """The store's wake-ups for this wait, asked for on the first use."""
        if self.subscription is None:
            self.subscription = watchable(self.store).subscribe(
                self.pickup.run,
                self.pickup.handoff_id,
                self.wake,
                signed=self.pickup.policy is not None,
                poll=self.force_polling,
            )
        return self.subscription

    def _announce(self) -> None:
        """The wait is about to block: say so in the store's waiter record and to
        ``on_block``. The handoff is inspected now, while nobody waits on the answer, so
        building its validator does not fall between the decision and its delivery."""
        self.announced = True
        self.registration.enter_context(
            self.store.waiting(self.pickup.run, self.pickup.handoff_id, audit.now_iso())
        )
        report = self.pickup.report()
        if self.on_block is not None:
            self.on_block(report)

    def unsettled(self, outcome: WaitOutcome) -> WaitResult:
        """A timeout or cancel, with the report as it stands (never approving)."""
        self.close()
        return self.pickup.unsettled(outcome)

    def close(self) -> None:
        self.registration.close()
        self._unsubscribe()

    def _unsubscribe(self) -> None:
        if self.subscription is not None:
            self.subscription.close()
            self.subscription = None


class Backoff:
    """A database that went away mid-wait is tried again, each pause twice the last, until
    the next try would come after the deadline: then the caller sees the failure
    (``handoff-gate wait`` exits 2 with it). ``wait`` and ``wait_async`` share it."""

    def __init__(self, waiter: Waiter) -> None:
        self.waiter = waiter
        self.pause = _RETRY_S

    def after(self, exc: StoreUnavailable) -> float:
        """How long to pause before the next try; raises ``exc`` past the deadline."""
        pause, deadline = self.pause, self.waiter.deadline
        if deadline is not None and time.monotonic() + pause > deadline:
            raise exc
        self.pause = min(pause * 2, _MAX_RETRY_S)
        return pause

    def reached(self) -> None:
        """The store answered: the next outage starts from the shortest pause again."""
        self.pause = _RETRY_S


class AsyncWaitOptions(TypedDict, total=False):
    """The keywords of a wait, written once. ``poll``: poll instead of the store's
    change events (for network filesystems that deliver none). ``on_block``: called
    once, with the handoff's current report, when the wait blocks. ``redeliver`` and
    ``expected_sha256``: as ``Pickup`` takes them."""

    timeout: float | None
    poll: bool
    on_block: Callable[[Report], None] | None
    on_refused: Callable[[str], None]
    redeliver: bool
    expected_sha256: str


class WaitOptions(AsyncWaitOptions, total=False):
    """The keywords of a blocking wait (``handoff_gate.wait``, ``Gate.wait``): those of
    ``AsyncWaitOptions`` and ``stop_event``, which ends the wait when set."""

    stop_event: threading.Event | None


def pickup_of(
    context: GateContext,
    run: str | os.PathLike[str],
    ref: HandoffRef | str,
    options: AsyncWaitOptions,
) -> Pickup:
    """The first look of a wait with ``options`` (``Pickup``)."""
    return Pickup(
        context,
        run,
        ref,
        timeout=options.get("timeout"),
        on_refused=options.get("on_refused", print_refusal),
        redeliver=options.get("redeliver", False),
        expected_sha256=options.get("expected_sha256", ""),
    )


def wait_after(
    pickup: Pickup,
    *,
    poll: bool = False,
    stop_event: threading.Event | None = None,
    on_block: Callable[[Report], None] | None = None,
) -> WaitResult:
    """``wait`` from a pickup already made (``Gate.wait`` and ``handoff-gate wait`` make
    their own): its deadline and the refusals it already reported carry over."""
    woken = threading.Event()
    waiter = Waiter(pickup, force_polling=poll, wake=woken.set, on_block=on_block)
    backoff = Backoff(waiter)
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
                backoff.reached()
                woken.wait(step)
                woken.clear()
            except StoreUnavailable as exc:
                time.sleep(backoff.after(exc))
    finally:
        waiter.close()
