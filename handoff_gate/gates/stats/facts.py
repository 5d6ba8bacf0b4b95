"""What one handoff adds to the look back, read from its ``Standing`` and nothing else.

Who decided is a ``Decider`` (a kind and a name), so a person and a rule of the same
name are never mistaken for each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:  # the figures and the stats screen load without the core's models
    from handoff_gate.gates.audit.decision_record import Decision
    from handoff_gate.gates.standing.standing import Standing

#: The states whose decision records settled them: only these have a decider and a time.
DECIDED = frozenset({HandoffState.APPROVED, HandoffState.REJECTED})


class Decider(NamedTuple):
    """Who made a decision: ``kind`` ``person`` (a reviewer) or ``rule`` (a policy's
    ``[[auto]]`` rule, by its name)."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Fact:
    """One handoff's share of the look back. ``seconds`` is ``None`` unless it was
    decided at or after its submit time (a decision dated before its handoff is not a
    time anyone waited)."""

    state: HandoffState
    phase: str
    tool: str | None
    submitted: datetime | None
    seconds: float | None = None
    decided_by: tuple[tuple[Decider, Action], ...] = ()
    category: str | None = None
    reason: str | None = None


def fact_of(found: Standing) -> Fact:
    """The handoff's share of the look back (never raises: what cannot be read is left out)."""
    envelope = found.report.envelope
    submitted = moment(envelope.created) if envelope is not None else None
    tool = envelope.tool.name if envelope is not None and envelope.tool is not None else None
    base = Fact(found.state, found.ref.phase, tool, submitted)
    records = _deciding(found)
    if not records or found.decision is None:
        return base
    settled = _settled_at(records)
    waited = (
        (settled - submitted).total_seconds()
        if settled is not None and submitted is not None
        else None
    )
    deciding = found.decision
    rejected = found.state is HandoffState.REJECTED
    return Fact(
        found.state,
        base.phase,
        tool,
        submitted,
        seconds=waited if waited is not None and waited >= 0 else None,
        decided_by=tuple((decider_of(d), d.action) for d in records),
        category=(deciding.category.value if deciding.category else None) if rejected else None,
        reason=deciding.reason if rejected else None,
    )


def _deciding(found: Standing) -> tuple[Decision, ...]:
    """The records that settled the handoff: the reject, or the approvals that count
    (a quorum's, in the order they were made); none unless approved or rejected."""
    if found.state not in DECIDED or found.decision is None:
        return ()
    if found.state is HandoffState.REJECTED:
        return (found.decision,)
    return found.decisions or (found.decision,)


def decider_of(record: Decision) -> Decider:
    """Who made one decision record: a policy's ``[[auto]]`` rule by its name, else the
    person the record names."""
    if record.rule is not None:
        return Decider("rule", record.rule)
    return Decider("person", record.reviewer)


def deciders_of(found: Standing) -> tuple[Decider, ...]:
    """Who settled the handoff (empty unless it is approved or rejected)."""
    return tuple(decider_of(d) for d in _deciding(found))


def _settled_at(records: tuple[Decision, ...]) -> datetime | None:
    """When the records settled the handoff: the last of them (a quorum is met by its
    last approval); ``None`` if any of their times cannot be read."""
    moments = [moment(d.decided_at) for d in records]
    known = [m for m in moments if m is not None]
    return max(known) if known and len(known) == len(moments) else None


def moment(text: str) -> datetime | None:
    """An ISO-8601 time as an aware UTC datetime (no zone: UTC); ``None`` if unreadable."""
    try:
        found = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
