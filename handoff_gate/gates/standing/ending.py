"""The two ends a handoff reaches without a decision: withdrawn, or expired.

Both are terminal and fail closed. Expiry is judged by the clock of whoever asks, so
nobody downstream has to trust the submitter's clock. A withdrawal outranks an approval:
the pipeline said it will not consume the handoff, so it is never delivered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import jiter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from handoff_gate.gates.standing.phase_rule import rule_or_none
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.vocab.deadline import AT_REGEX, is_past, parse_at, parse_duration, stamp
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


class Withdrawal(BaseModel):
    """The pipeline's withdrawal record of one handoff."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    handoff: str
    run: str
    by: str = Field(min_length=1, max_length=200)
    withdrawn_at: str = Field(pattern=AT_REGEX)
    reason: str | None = Field(default=None, max_length=2000)


@dataclass(frozen=True, slots=True)
class Ending:
    """A handoff's end without a decision: its state and the one line that says so."""

    state: HandoffState
    why: str


def withdrawal_of(store: RunStore, run: str, handoff_id: str) -> Withdrawal | None:
    """The handoff's withdrawal, if any. A record that cannot be read still withdraws it
    (fail closed), with its problem in place of a reason."""
    data = store.withdrawal_record(run, handoff_id)
    if data is None:
        return None
    try:
        return Withdrawal.model_validate_json(data)
    except ValidationError:
        return Withdrawal(
            handoff=handoff_id,
            run=run,
            by="?",
            withdrawn_at="0000-00-00T00:00:00.000Z",
            reason="the withdrawal record is unreadable",
        )


def ending(
    store: RunStore,
    run: str,
    handoff_id: str,
    expires_at: str | None,
    *,
    now: datetime | None = None,
) -> Ending | None:
    """Withdrawn (the record), else expired (the deadline past by ``now``), else ``None``."""
    found = withdrawal_of(store, run, handoff_id)
    if found is not None:
        reason = f": {visible(found.reason)}" if found.reason else ""
        by = f"{visible(found.by)} at {found.withdrawn_at}"
        return Ending(HandoffState.WITHDRAWN, f"{handoff_id} was withdrawn by {by}{reason}")
    if expires_at is not None and is_past(expires_at, now):
        return Ending(HandoffState.EXPIRED, f"{handoff_id} expired at {expires_at}")
    return None


#: What a deadline in a form no envelope may have is read as: already past.
PAST = "0001-01-01T00:00:00.000Z"


def deadline(expires_at: str | None, created: object, rule: Rule | None) -> str | None:
    """When the handoff expires as judged under the policy ``rule`` of its phase (``None``:
    no policy, or none covers it): the envelope's ``expires_at``, or the rule's
    ``expires_in`` counted from ``created``, whichever comes first: the rule's limits
    every handoff of the phase, whether or not its submitter named the policy."""
    limit = _rule_limit(created, rule)
    if limit is None:
        return expires_at
    if expires_at is None:
        return limit
    try:
        return expires_at if parse_at(expires_at) <= parse_at(limit) else limit
    except ValueError:
        return PAST


def _rule_limit(created: object, rule: Rule | None) -> str | None:
    if rule is None or rule.expires_in is None:
        return None
    if not isinstance(created, str):
        return PAST
    try:
        return stamp(parse_at(created) + parse_duration(rule.expires_in))
    except ValueError:
        return PAST


def stored_deadline(
    store: RunStore, run: str, handoff_id: str, policy: Policy | None = None
) -> str | None:
    """The stored envelope's :func:`deadline`, read without a full inspection (for a wait,
    which looks again and again); a malformed one is read as already past."""
    try:
        value = jiter.from_json(store.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    found = value.get("expires_at")
    if found is not None:
        try:
            parse_at(found)
        except ValueError:
            return PAST
    return deadline(found, value.get("created"), rule_or_none(policy, handoff_id))


def decided_late(expires_at: str | None, decided_at: list[str]) -> bool:
    """Whether any of these decisions was dated after the deadline (a record written by
    a skewed or a forged clock): such a decision counts for nothing."""
    if expires_at is None:
        return False
    deadline = parse_at(expires_at)
    for moment in decided_at:
        try:
            if parse_at(moment) > deadline:
                return True
        except ValueError:
            return True
    return False
