"""What the next phase would receive if the handoff were approved now, as ``wait`` gives it.

A wait that ends in an approval hands over the report's ``delivered`` payload (the
validated, allow-listed fields, ``deliver.pickup``), and ``handoff-gate wait --out`` writes it
as the JSON text below. Showing a reviewer those exact bytes before approving makes
"what crosses the boundary" something seen, not inferred from the field view: dropped
keys are absent, defaults are filled in, values are re-serialised.
"""

from __future__ import annotations

import json
from typing import Any

from handoff_gate.gates.vocab.report import Report


def delivered_text(report: Report) -> str | None:
    """The payload an approval now would deliver, as ``wait --out`` writes it; ``None``
    when nothing would be: a blocked handoff cannot be approved."""
    if not report.approvable or report.delivered is None:
        return None
    return payload_text(report.delivered)


def payload_text(payload: dict[str, Any]) -> str:
    """A delivered payload as ``wait`` writes it: indented JSON, ASCII only."""
    return json.dumps(payload, ensure_ascii=True, indent=2) + "\n"
