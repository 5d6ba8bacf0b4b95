"""A decision as recorded: its model, and reading one back without trusting it.

A decision names the sha256 of the exact handoff bytes that were reviewed. A record that
cannot be read or validated is ``DecisionCorrupt``: decided, but never an approval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from handoff_gate.gates.store.durable import OversizeError, read_bounded
from handoff_gate.gates.store.filesystem import decision_path
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.findings import Verdict
from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES


class Decision(BaseModel):
    """One decision file, ``RUN_DIR/decisions/{handoff}.json``.

    ``defer_build``: the validator is built when the first decision is read or written.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    format: Literal["handoff-gate-decision/1"] = "handoff-gate-decision/1"
    handoff: str = Field(pattern=r"^[0-9]{4,}-[a-z0-9][a-z0-9_-]{0,39}$")
    run: str = Field(min_length=1, max_length=200)
    action: Action
    reason: str | None = Field(default=None, max_length=10_000)
    category: Category | None = None
    reviewer: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$")
    decided_at: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    verdict: Verdict
    codes: tuple[str, ...] = ()


class DecisionCorrupt(ValueError):
    """A decision file exists but is not a valid decision (tampering or disk damage).

    Callers treat it as "decided, but unusable": never as an approval.
    """


def read_decision(run_dir: Path, handoff_id: str) -> Decision | None:
    """The decision for a handoff, ``None`` if there is none; ``DecisionCorrupt`` if unusable."""
    path = decision_path(run_dir, handoff_id)
    try:
        data = read_bounded(path, MAX_DECISION_BYTES)
    except FileNotFoundError:
        return None
    except OversizeError as exc:
        raise DecisionCorrupt(f"decision for {handoff_id} is unusable: {exc}") from exc
    except OSError as exc:
        raise DecisionCorrupt(f"decision for {handoff_id} is unreadable: {exc}") from exc
    try:
        decision = Decision.model_validate_json(data)
    except ValidationError as exc:
        raise DecisionCorrupt(
            f"decision for {handoff_id} is not a valid decision file "
            f"({exc.error_count()} problem(s))"
        ) from exc
    if decision.handoff != handoff_id:
        raise DecisionCorrupt(f"decision file for {handoff_id} names {decision.handoff!r}")
    return decision


def describe(decision: Decision) -> str:
    """E.g. ``rejected by ana@host at 2026-01-02T03:04:05.000Z``, for refusals and lists."""
    done = "approved" if decision.action is Action.APPROVE else "rejected"
    return f"{done} by {decision.reviewer} at {decision.decided_at}"
