"""``wait --json``: how a wait ended, as one JSON object a script in any language reads.

Prose on stderr cannot be parsed safely (a reviewer named ``ops:alice``, a reason over
several lines), so a shell or TypeScript pipeline reads the outcome, the reason and what
the delivery dropped or filled in from this object instead. The keys are a contract
(docs/protocol.md): ``outcome``, ``payload`` (the delivered object on approval, else
``null``), ``decision`` (the deciding record, as ``show --json`` prints it), ``report``
(``check --json``'s shape), ``dropped_keys`` and ``defaulted`` (field paths),
``edited`` with ``edited_sha256`` and ``original_sha256`` (an approved reviewer's edit
is what ``payload`` holds) and ``ended`` (for ``expired``, ``withdrawn`` and
``already_delivered``: the line saying when it expired, who withdrew it and why, or that
it was delivered already; else ``null``).
"""

from __future__ import annotations

from typing import Any

from handoff_gate.gates.gate import WaitOutcome, WaitResult


def result_json(result: WaitResult) -> dict[str, Any]:
    """The ``wait --json`` object; ``payload`` only for an approval, whatever else is set."""
    approved = result.outcome is WaitOutcome.APPROVED
    return {
        "outcome": result.outcome.value,
        "payload": result.payload if approved else None,
        "decision": result.decision.model_dump(mode="json") if result.decision else None,
        "report": result.report.to_json() if result.report is not None else None,
        "dropped_keys": list(result.dropped_keys),
        "defaulted": list(result.defaulted),
        "edited": result.edited,
        "edited_sha256": result.edited_sha256,
        "original_sha256": result.original_sha256 if approved else None,
        "ended": result.ended or None,
    }
