"""Durable approve/reject decisions: at most one per handoff, first writer wins.

A decision pins the sha256 of the exact handoff bytes the reviewer saw, so a file
edited afterwards can be told apart from the one that was approved. It is published
with an exclusive create, so racing reviewers (or processes) cannot both succeed and
a crash leaves either no decision or a complete one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from handoff_gate.gates.run import audit
from handoff_gate.gates.run.decision_record import (
    Decision,
    DecisionCorrupt,
    describe,
    read_decision,
)
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.store.durable import exclusive_create
from handoff_gate.gates.store.filesystem import DECISIONS, decision_path, handoff_path, is_run
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.ids import validate_id
from handoff_gate.gates.vocab.safe_text import has_unsafe

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry


class DecisionRefused(Exception):
    """A decision that must not be written; the message is one line, fit for stderr."""


def default_reviewer() -> str:
    """``user@host`` of the OS account, so an unattended approval still names someone."""
    import getpass  # imported here: only a decision without --reviewer needs it
    import socket

    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"


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
