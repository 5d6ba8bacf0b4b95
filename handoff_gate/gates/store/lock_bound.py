"""How long a writer waits for a lock another process holds, and the error when it gives up.

Any local process (``flock``) or database role (advisory lock) can take and keep the
audit lock, so an unbounded wait would let it hang every ``decide`` and ``wait``.
Legitimate holders keep it for milliseconds. A caller with a deadline of its own (a
hook the agent kills at its timeout) sets it with :func:`lock_deadline`, a context
variable, so it bounds only that thread or task.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from handoff_gate.gates.store.base import StoreError
from handoff_gate.gates.vocab.environment import LOCK_TIMEOUT_ENV as LOCK_TIMEOUT_ENV
from handoff_gate.gates.vocab.environment import Environment

DEFAULT_LOCK_TIMEOUT = 10.0
#: The largest bound accepted: PostgreSQL's ``lock_timeout`` counts milliseconds in 31 bits.
MAX_LOCK_TIMEOUT = 86_400.0
#: The shortest wait past a deadline: one try, never a block.
MIN_LOCK_WAIT = 0.001

_DEADLINE: ContextVar[float | None] = ContextVar("handoff_gate_lock_deadline", default=None)


class LockTimeout(StoreError, OSError):
    """An ``OSError`` too, so callers report it as any storage failure of a write."""


class LockSettingError(StoreError, ValueError):
    """:data:`LOCK_TIMEOUT_ENV` holds something that is not a usable number of seconds."""


@contextmanager
def lock_deadline(at: float) -> Iterator[None]:
    """Bound every lock wait started inside the block by ``at`` (``time.monotonic()``),
    besides :data:`LOCK_TIMEOUT_ENV`; an enclosing earlier deadline still holds."""
    current = _DEADLINE.get()
    token = _DEADLINE.set(at if current is None else min(current, at))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline_left() -> float | None:
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


def lock_timeout() -> float:
    """The bound in seconds: :data:`LOCK_TIMEOUT_ENV`, else :data:`DEFAULT_LOCK_TIMEOUT`;
    never past the deadline of :func:`lock_deadline` (at least :data:`MIN_LOCK_WAIT`)."""
    bound = _setting()
    left = deadline_left()
    return bound if left is None else max(MIN_LOCK_WAIT, min(bound, left))


def _setting() -> float:
    text = Environment.read().lock_timeout.strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_LOCK_TIMEOUT:
        shown = text if len(text) <= 20 and text.isprintable() else "this value"
        raise LockSettingError(
            f"{LOCK_TIMEOUT_ENV} must be a number of seconds above 0 and at most "
            f"{MAX_LOCK_TIMEOUT:g}, not {shown!r}"
        )
    return value


def gave_up(what: str, seconds: float) -> LockTimeout:
    left = deadline_left()
    if left is not None and left < seconds:
        return LockTimeout(f"{what}; gave up at the caller's deadline")
    return LockTimeout(
        f"{what}; gave up after {seconds:g} s ({LOCK_TIMEOUT_ENV} sets how long to wait)"
    )
