"""The baton: a small JSON object that travels with the work, updated by merge patches.

Each agent reads the baton before its step and returns a ``baton_patch/v1`` with only
the fields it changes. ``current_state`` is replaced by every patch; ``decision_log`` is
append-only so a later agent cannot quietly undo an earlier decision.

Inspection makes the ``append_only`` comparison, because it needs the previous handoff.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from handoff_gate.schemas.base import Contract, Issue
from handoff_gate.schemas.checks import instant, objects
from handoff_gate.schemas.types import Line, Name, Ref, Text, Timestamp


class DecisionEntry(Contract):
    """A decision taken at one step, with the reason a later agent needs to respect it."""

    step_id: Name = Field(description="The step that took the decision.")
    timestamp: Timestamp = Field(description="When, as ISO-8601 with an offset.")
    decision: Line = Field(description="What was decided, in one line.")
    rationale: Text = Field(description="Why, so a later step does not reverse it by accident.")


GOAL = "The objective, in one sentence."
STATE = "What is true now; replaced, not appended, by each patch."
LOG = "Decisions taken so far, oldest first; append-only."
CONSTRAINTS = "Hard rules every step must respect."
QUESTIONS = "Questions still unresolved."
SCOPE = "Files or modules the work may touch."
ARTIFACTS = "References to outputs produced so far."
ACCEPTANCE = "Tests or checks that must pass for the work to count as done."


def log_order(data: object) -> list[Issue]:
    """Entries of an append-only log must not go back in time."""
    issues: list[Issue] = []
    previous = None
    for i, entry in objects(data, "decision_log"):
        when = instant(entry.get("timestamp"))
        if when is None:
            continue
        if previous is not None and when < previous:
            issues.append(Issue(f"decision_log[{i}].timestamp", "earlier than the entry before it"))
        previous = when
    return issues


class Baton(Contract):
    """The baton: shared context of a multi-step workflow, about a thousand tokens."""

    append_only: ClassVar[tuple[str, ...]] = ("decision_log",)

    goal: Line = Field(description=GOAL)
    current_state: Text = Field(description=STATE)
    decision_log: list[DecisionEntry] = Field(max_length=500, description=LOG)
    constraints: list[Line] = Field(max_length=100, description=CONSTRAINTS)
    open_questions: list[Line] = Field(max_length=100, description=QUESTIONS)
    work_scope: list[Ref] = Field(max_length=200, description=SCOPE)
    artifacts: list[Ref] = Field(max_length=200, description=ARTIFACTS)
    acceptance: list[Line] = Field(min_length=1, max_length=100, description=ACCEPTANCE)

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        return log_order(data)


#: The baton fields a patch may change.
PATCHABLE = (
    "goal",
    "current_state",
    "decision_log",
    "constraints",
    "open_questions",
    "work_scope",
    "artifacts",
    "acceptance",
)


class BatonPatch(Contract):
    """A step's update to the baton: only the fields the step changes carry a value.

    An absent key and ``null`` both mean "unchanged" (a provider's strict structured-output
    mode has to send every key, so it sends ``null`` for the rest). A patch that changes
    nothing is a step that reported nothing, which is a cross-field issue.
    ``decision_log``, when present, is the whole new log, not just the new entries.
    """

    append_only: ClassVar[tuple[str, ...]] = ("decision_log",)

    step_id: Name = Field(description="The step that produced this patch.")
    timestamp: Timestamp = Field(description="When the step finished, ISO-8601 with an offset.")
    goal: Line | None = Field(default=None, description=GOAL)
    current_state: Text | None = Field(default=None, description=STATE)
    decision_log: list[DecisionEntry] | None = Field(
        default=None, max_length=500, description=LOG + " The full new log, not just new entries."
    )
    constraints: list[Line] | None = Field(default=None, max_length=100, description=CONSTRAINTS)
    open_questions: list[Line] | None = Field(default=None, max_length=100, description=QUESTIONS)
    work_scope: list[Ref] | None = Field(default=None, max_length=200, description=SCOPE)
    artifacts: list[Ref] | None = Field(default=None, max_length=200, description=ARTIFACTS)
    acceptance: list[Line] | None = Field(
        default=None, min_length=1, max_length=100, description=ACCEPTANCE
    )

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        if not isinstance(data, Mapping):
            return []
        issues = log_order(data)
        if not any(data.get(key) is not None for key in PATCHABLE):
            issues.append(Issue("", "the patch changes no baton field"))
        return issues
