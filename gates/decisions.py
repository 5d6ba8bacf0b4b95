"""Durable approve/reject decisions: at most one per handoff, first writer wins.

A decision pins the sha256 of the exact handoff bytes the reviewer saw, so a file
edited afterwards can be told apart from the one that was approved. It is published
with an exclusive create, so racing reviewers (or processes) cannot both succeed and
a crash leaves either no decision or a complete one.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from handoff_gate.gates import audit
from handoff_gate.gates.fsutil import OversizeError, exclusive_create, read_bounded, validate_id
from handoff_gate.gates.sanitize import has_unsafe
from handoff_gate.gates.store import DECISIONS, decision_path, handoff_path, inspect_in_run, is_run

if TYPE_CHECKING:
    from handoff_gate.gates.decision_file import Decision as Decision
    from handoff_gate.gates.registry import Registry

_MAX_DECISION_BYTES = 256 * 1024


def __getattr__(name: str) -> Any:
    """``Decision`` lives in ``gates.decision_file`` and is loaded on first use.

    Defining a pydantic model loads pydantic's model machinery (about 28 ms); the
    watcher imports this module for its enums and functions before its first paint and
    reads no decision until after it.
    """
    if name == "Decision":
        from handoff_gate.gates.decision_file import Decision

        return Decision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Action(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


class Category(StrEnum):
    """Why a handoff was rejected, coarse enough to count across runs."""

    INCOMPLETE = "incomplete"
    TRUNCATED = "truncated"
    WRONG = "wrong"
    UNSAFE = "unsafe"
    OUT_OF_SCOPE = "out_of_scope"
    OTHER = "other"


class DecisionRefused(Exception):
    """A decision that must not be written; the message is one line, fit for stderr."""


class DecisionCorrupt(ValueError):
    """A decision file exists but is not a valid decision (tampering or disk damage).

    Callers treat it as "decided, but unusable": never as an approval.
    """


def default_reviewer() -> str:
    """``user@host`` of the OS account, so an unattended approval still names someone."""
    import getpass  # imported here: only a decision without --reviewer needs it
    import socket

    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"


def read_decision(run_dir: Path, handoff_id: str) -> Decision | None:
    """The decision for a handoff, ``None`` if there is none; ``DecisionCorrupt`` if unusable."""
    from pydantic import ValidationError

    from handoff_gate.gates.decision_file import Decision

    path = decision_path(run_dir, handoff_id)
    try:
        data = read_bounded(path, _MAX_DECISION_BYTES)
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


def _refuse(
    run_dir: Path, handoff_id: str, action: Action, reviewer: str, message: str
) -> NoReturn:
    """Log the refusal (when there is a run to log in) and raise it."""
    if is_run(run_dir):
        audit.append(
            run_dir,
            audit.Event.DECISION_REFUSED,
            handoff=handoff_id,
            action=action.value,
            reviewer=reviewer,
            why=message,
        )
    raise DecisionRefused(message)


def decide(
    run_dir: Path,
    handoff_id: str,
    action: Action | str,
    *,
    reason: str | None = None,
    category: Category | str | None = None,
    reviewer: str | None = None,
    registry: Registry,
    expected_sha256: str | None = None,
) -> Decision:
    """Record a decision after re-inspecting the handoff's current bytes.

    Refused (``DecisionRefused``, audited) when: rejecting without a reason, the handoff
    is already decided, missing, changed since ``expected_sha256`` was reviewed, or
    blocked and the action is approve. ``ValueError`` for a malformed id or argument.
    """
    from handoff_gate.gates.decision_file import Decision

    validate_id(handoff_id)
    action = Action(action)
    category = Category(category) if category is not None else None
    who = default_reviewer() if reviewer is None else reviewer.strip()
    if not who or len(who) > 200 or has_unsafe(who) or "\n" in who or "\t" in who:
        raise ValueError("the reviewer name must be 1-200 printable characters on one line")
    reason = reason.strip() if reason is not None else None
    if action is Action.REJECT and not reason:
        _refuse(run_dir, handoff_id, action, who, "a rejection needs a non-blank --reason")
    existing = _existing(run_dir, handoff_id)
    if existing is not None:
        _refuse(run_dir, handoff_id, action, who, f"{handoff_id} is already {existing}")
    if not handoff_path(run_dir, handoff_id).is_file():
        _refuse(run_dir, handoff_id, action, who, f"no handoff {handoff_id} in {run_dir}")
    report = inspect_in_run(run_dir, handoff_id, registry)
    if not report.sha256:
        _refuse(run_dir, handoff_id, action, who, f"{handoff_id} cannot be read; nothing to decide")
    if expected_sha256 is not None and report.sha256 != expected_sha256:
        _refuse(run_dir, handoff_id, action, who, f"{handoff_id} changed since it was reviewed")
    if action is Action.APPROVE and not report.approvable:
        codes = ", ".join(sorted({f.code.value for f in report.blocking}))
        _refuse(run_dir, handoff_id, action, who, f"{handoff_id} is blocked ({codes})")
    decision = Decision(
        handoff=handoff_id,
        run=run_dir.resolve().name,
        action=action,
        reason=reason or None,
        category=category,
        reviewer=who,
        decided_at=audit.now_iso(),
        sha256=report.sha256,
        verdict=report.verdict,
        codes=tuple(f.code.value for f in report.findings),
    )
    (run_dir / DECISIONS).mkdir(exist_ok=True)
    data = json.dumps(decision.model_dump(mode="json"), ensure_ascii=True, indent=2) + "\n"
    try:
        exclusive_create(decision_path(run_dir, handoff_id), data.encode())
    except FileExistsError:
        _refuse(
            run_dir,
            handoff_id,
            action,
            who,
            f"{handoff_id} is already {_existing(run_dir, handoff_id)}",
        )
    audit.append(
        run_dir,
        audit.Event.DECISION_WRITTEN,
        handoff=handoff_id,
        action=action.value,
        category=category.value if category else None,
        reviewer=who,
        sha256=report.sha256,
        verdict=report.verdict.value,
    )
    return decision


def _existing(run_dir: Path, handoff_id: str) -> str | None:
    """A one-line description of the decision already on disk, if any."""
    try:
        found = read_decision(run_dir, handoff_id)
    except DecisionCorrupt:
        return "decided (the decision file is unreadable)"
    return describe(found) if found is not None else None
