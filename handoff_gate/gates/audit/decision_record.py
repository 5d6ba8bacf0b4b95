"""A decision as recorded: its model, and reading one back without trusting it.

A record names the run and handoff it was made for, so a copy filed elsewhere is
refused, with or without a policy; one that cannot be read or validated is
``DecisionCorrupt``: never an approval. A signature covers what ``decision_statement``
lists; of the rest ``verdict`` and ``codes`` are the decider's notes, never used to
settle anything (the gate inspects the bytes again). A rule's record is never signed and
counts only as ``audit.rule_record`` allows. ``codes`` lists each finding code once, so
a payload with 14,000 findings still fits the record's size cap.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Literal

import jiter
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.trust.statement import decision_statement
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.envelope import PRINCIPAL_REGEX
from handoff_gate.gates.vocab.findings import Code, Verdict
from handoff_gate.gates.vocab.ids import ID_REGEX
from handoff_gate.gates.vocab.safe_text import has_unsafe, os_reason

#: The decided_at spelling ``audit.now_iso`` writes and a signed statement requires.
_STAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z"
)


def parse_stamp(text: str) -> datetime:
    """The moment ``2026-11-30T20:39:32.123Z`` names; ``ValueError`` for anything else,
    an impossible date included. (Not ``strptime``: its first use costs a waiter 2 ms.)"""
    found = _STAMP.fullmatch(text)
    if found is None:
        raise ValueError("must be UTC ISO-8601 with milliseconds and Z")
    year, month, day, hour, minute, second, milli = map(int, found.groups())
    return datetime(year, month, day, hour, minute, second, milli * 1000, tzinfo=UTC)


class Decision(BaseModel):
    """One decision record; its fields are docs/protocol.md's "Decision"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["handoff-gate-decision/1"] = "handoff-gate-decision/1"
    handoff: str = Field(pattern=ID_REGEX)
    run: str = Field(min_length=1, max_length=200)
    action: Action
    reason: str | None = Field(default=None, max_length=10_000)
    category: Category | None = None
    reviewer: str = Field(min_length=1, max_length=200)
    decided_at: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    verdict: Verdict
    codes: tuple[str, ...] = ()
    principal: str | None = Field(default=None, pattern=PRINCIPAL_REGEX)
    log_head: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    signature: str | None = Field(default=None, max_length=4096)
    edited_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    #: Left out of a person's record.
    rule: str | None = Field(
        default=None, min_length=1, max_length=100, exclude_if=lambda v: v is None
    )
    policy_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", exclude_if=lambda v: v is None
    )

    @field_validator("reviewer")
    @classmethod
    def _safe_reviewer(cls, value: str) -> str:
        if has_unsafe(value) or value != value.strip() or "\n" in value or "\t" in value:
            raise ValueError("must be printable text on one line")
        return value

    @field_validator("decided_at")
    @classmethod
    def _real_time(cls, value: str) -> str:
        parse_stamp(value)
        return value

    @model_validator(mode="after")
    def _signed_reviewer(self) -> Decision:
        """A signed record names its signer as its reviewer: ``reviewer`` is not covered
        by the signature, so any other name there would let ``list`` and ``show`` say
        "approved by bob" of alice's signature."""
        if self.principal is not None and self.reviewer != self.principal:
            raise ValueError("a signed decision's reviewer must be its principal")
        return self

    @model_validator(mode="after")
    def _edit_approves(self) -> Decision:
        """Only an approval delivers an edit; a reject of edited bytes means nothing."""
        if self.edited_sha256 is not None and self.action is not Action.APPROVE:
            raise ValueError("only an approval can carry edited_sha256")
        return self

    @model_validator(mode="after")
    def _rule_record(self) -> Decision:
        """A rule's record names its policy, is decided by ``rule NAME`` (what every
        screen shows) and carries nothing a person's signature would: a rule signs
        nothing, and approves only the producer's bytes."""
        if (self.rule is None) != (self.policy_sha256 is None):
            raise ValueError("a rule's decision names both the rule and its policy_sha256")
        if self.rule is None:
            return self
        if self.reviewer != f"rule {self.rule}":
            raise ValueError("a rule's decision is decided by 'rule NAME'")
        if self.signature is not None or self.principal is not None or self.edited:
            raise ValueError("a rule's decision is neither signed nor an edit")
        return self

    @property
    def by_rule(self) -> bool:
        """Whether a policy's ``[[auto]]`` rule made this decision, not a person."""
        return self.rule is not None

    @property
    def edited(self) -> bool:
        """Whether this approval delivers the reviewer's edit, not the producer's bytes."""
        return self.edited_sha256 is not None

    @property
    def signed(self) -> bool:
        return self.signature is not None

    def statement(self, principal: str, log_head: str) -> bytes:
        """The bytes ``principal`` signs for this decision after seeing ``log_head``: one
        builder for signing and verifying, so the two can never drift apart."""
        return decision_statement(
            run=self.run,
            handoff=self.handoff,
            sha256=self.sha256,
            action=self.action.value,
            reason=self.reason,
            category=self.category.value if self.category else None,
            principal=principal,
            at=self.decided_at,
            log_head=log_head,
            edited_sha256=self.edited_sha256,
        )


#: Fields only signed records (or approvals of an edit) carry; a record without them is
#: written as before they existed.
_SIGNED_ONLY = frozenset({"principal", "log_head", "signature", "edited_sha256"})


def record_bytes(decision: Decision) -> bytes:
    """The bytes a decision is stored as, a person's or a rule's: one spelling of the
    format (the hook's fast path restates it, pinned by tests/test_hook_fast.py)."""
    fields = {
        name: value
        for name, value in decision.model_dump(mode="json").items()
        if value is not None or name not in _SIGNED_ONLY
    }
    return (json.dumps(fields, ensure_ascii=True, indent=2) + "\n").encode()


class DecisionCorrupt(ValueError):
    """A decision record exists but is not a valid decision (tampering or disk damage):
    "decided, but unusable", never an approval."""


class DecisionMisplaced(DecisionCorrupt):
    """A valid record made for another run or handoff: a copy, refused and ignored."""


def codes_of(codes: object) -> tuple[str, ...]:
    """Each finding code once, in vocabulary order: the bounded form a record keeps."""
    present = {str(code) for code in codes} if isinstance(codes, list | tuple) else set()
    return tuple(code.value for code in Code if code.value in present)


def parse_decision(data: bytes, run_name: str, handoff_id: str) -> Decision:
    """Validate record bytes for the handoff ``handoff_id`` of the run named ``run_name``.
    Duplicate keys are refused first: a second ``action`` must not hide behind the first."""
    try:
        value = jiter.from_json(data, catch_duplicate_keys=True, allow_inf_nan=False)
        decision = Decision.model_validate(value)
    except ValidationError as exc:  # the cause lists each field's problem for `list`
        raise DecisionCorrupt(
            f"decision for {handoff_id} is not a valid decision file "
            f"({exc.error_count()} problem(s))"
        ) from exc
    except ValueError as exc:
        raise DecisionCorrupt(f"decision for {handoff_id} is not valid JSON: {exc}") from None
    if decision.handoff != handoff_id:
        raise DecisionMisplaced(f"decision record for {handoff_id} names {decision.handoff!r}")
    if decision.run != run_name:
        raise DecisionMisplaced(
            f"decision record for {handoff_id} was made in run {decision.run!r}, not {run_name!r}"
        )
    return decision


def read_decision(run: str, handoff_id: str, store: RunStore) -> Decision | None:
    """The unsigned decision for a handoff, ``None`` if there is none; ``DecisionCorrupt``
    if unusable (unreadable, invalid, or made for another run or handoff)."""
    try:
        data = store.decision_records(run, handoff_id).get(None)
    except OversizeError as exc:
        raise DecisionCorrupt(f"decision for {handoff_id} is unusable: {exc}") from exc
    except OSError as exc:
        raise DecisionCorrupt(f"decision for {handoff_id} is unreadable: {os_reason(exc)}") from exc
    if data is None:
        return None
    return parse_decision(data, store.run_name(run), handoff_id)


def describe(decision: Decision) -> str:
    """E.g. ``rejected by ana@host at 2026-01-02T03:04:05.000Z``, for refusals and lists."""
    done = "approved" if decision.action is Action.APPROVE else "rejected"
    edited = " an edit" if decision.edited else ""
    return f"{done}{edited} by {decision.reviewer} at {decision.decided_at}"
