"""What is wrong with a handoff's decision, in words a reviewer can act on.

``unusable`` is a state of its own: "changed" or "N problem(s)" tells nobody what to
fix. ``list``/``show`` and the TUI use the same wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from handoff_gate.gates.vocab.states import Decided, HandoffState, state_of

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.report import Report

#: At most this many validation problems are named; the rest are counted.
MAX_PROBLEMS = 3


def unusable_reason(exc: Exception) -> str:
    """The decision's exact problem: each invalid field and why, or the read error."""
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):
        return str(exc)
    problems = [
        f"{'.'.join(str(p) for p in err['loc']) or '(record)'}: {err['msg']}"
        for err in cause.errors(include_url=False, include_input=False)
    ]
    more = len(problems) - MAX_PROBLEMS
    text = "; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
    return f"not a valid decision file: {text}"


def standing_of(
    report: Report, decision: Decided | None, problem: str = ""
) -> tuple[HandoffState, str]:
    """The state of a handoff and, for ``unusable``, why. A decided handoff whose bytes
    cannot be read is ``unusable``, not ``changed``: "changed" would send the reviewer
    looking for an edit that may never have happened."""
    if problem:
        return HandoffState.UNUSABLE, problem
    if decision is not None and not report.sha256:
        why = report.blocking[0].message if report.blocking else "it cannot be read"
        return (
            HandoffState.UNUSABLE,
            f"the handoff cannot be read, so its decision cannot be checked: {why}",
        )
    return state_of(report, decision), ""
