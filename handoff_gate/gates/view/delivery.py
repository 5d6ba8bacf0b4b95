"""What the next phase would receive if the handoff were approved now, as ``wait --out``
writes it: showing a reviewer those exact bytes makes "what crosses the boundary"
something seen, not inferred from the field view.
"""

from __future__ import annotations

import json
from typing import Any

from handoff_gate.gates.vocab.report import Report


def delivered_text(report: Report) -> str | None:
    """``None`` when nothing would be: a blocked handoff cannot be approved."""
    if not report.approvable or report.delivered is None:
        return None
    return payload_text(report.delivered)


def payload_text(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=True, indent=2) + "\n"
