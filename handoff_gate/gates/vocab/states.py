"""The state a handoff is in, derived from its current report and its decision.

State is never stored: it is recomputed from the file on disk, so an edit made after
a decision shows up as ``changed`` instead of silently inheriting the old verdict.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from handoff_gate.gates.vocab.actions import Action

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.report import Report


class Decided(Protocol):
    """What the state needs of a decision record: the bytes it named and its action."""

    @property
    def sha256(self) -> str: ...
    @property
    def action(self) -> Action: ...


class HandoffState(StrEnum):
    PENDING = "pending"
    BLOCKED = "blocked"
    APPROVED = "approved"
    REJECTED = "rejected"
    CHANGED = "changed"
    #: The decision record itself is invalid (unreadable, malformed, for another handoff):
    #: decided, never an approval; ``state_of`` cannot see it, the reader of the record does.
    UNUSABLE = "unusable"
    #: The producer side withdrew it (``withdraw``): terminal, never decided or delivered.
    WITHDRAWN = "withdrawn"
    #: Its deadline (``expires_at``) passed undecided: terminal, never decided or delivered.
    EXPIRED = "expired"


#: Undecided handoffs: each waits for a person (a pending one to be approved or rejected,
#: a blocked one to be rejected). ``changed`` is not here: it has a decision already, and
#: only a new handoff from the pipeline moves it on.
NEEDS_PERSON = frozenset({HandoffState.PENDING, HandoffState.BLOCKED})

#: The ends a handoff reaches without a decision; nothing can be decided after them.
ENDED = frozenset({HandoffState.WITHDRAWN, HandoffState.EXPIRED})


def needs_person(state: HandoffState | None) -> bool:
    """Whether a handoff in ``state`` waits for a person's decision (unknown: no)."""
    return state in NEEDS_PERSON


def decidable_now(state: HandoffState | None, refusal: str | None) -> bool:
    """Whether the reviewer at hand can decide the handoff now, what a front end counts
    ("to decide N") and leads them to: undecided and approvable (a blocked one can only
    be rejected: not the work waiting), and no ``refusal``, why the deciding code would
    refuse this reviewer's key. ``state`` is ``None`` while it is not inspected yet."""
    return state is HandoffState.PENDING and not refusal


def state_of(report: Report, decision: Decided | None) -> HandoffState:
    """Undecided: pending or blocked by its verdict. Decided: the decision, unless the
    file's sha256 no longer matches the bytes that were decided on (``changed``)."""
    if decision is None:
        return HandoffState.PENDING if report.approvable else HandoffState.BLOCKED
    if decision.sha256 != report.sha256:
        return HandoffState.CHANGED
    if decision.action is Action.APPROVE:
        return HandoffState.APPROVED
    return HandoffState.REJECTED
