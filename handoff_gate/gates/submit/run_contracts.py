"""``run_contracts``: every contract a run's handoffs can be reviewed against.

The JSON Schemas the run stores and the Python contracts its handoffs name (digested as
their JSON Schema export), one row each, for ``contracts list``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import jiter
from pydantic import PydanticUserError

from handoff_gate.gates.contracts.json_schema import canonical_bytes
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES


def run_contracts(store: RunStore, run: str, contracts: Registry) -> list[dict[str, Any]]:
    """Rows of ``id``, ``sha256``, ``kind`` (``json-schema`` or ``python``) and ``added``,
    sorted by id then kind."""
    stored = [
        {"id": c.schema_id, "sha256": c.sha256, "kind": c.kind, "added": c.added}
        for c in store.contracts(run)
    ]
    rows = stored + _python_rows(store, run, contracts)
    return sorted(rows, key=lambda r: (str(r["id"]), str(r["kind"])))


def _python_rows(store: RunStore, run: str, contracts: Registry) -> list[dict[str, Any]]:
    """The Python contracts the run's handoffs name without a stored digest, each once,
    added when the first of them was submitted."""
    rows: dict[str, dict[str, Any]] = {}
    for handoff_id in store.handoff_ids(run):
        try:
            envelope = jiter.from_json(store.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES))
        except (OSError, ValueError):
            continue
        if not isinstance(envelope, dict) or envelope.get("schema_sha256") is not None:
            continue
        schema_id = envelope.get("schema")
        if not isinstance(schema_id, str) or schema_id in rows or schema_id not in contracts:
            continue
        try:
            exported = contracts[schema_id].model_json_schema()
        except PydanticUserError:
            continue  # no JSON Schema to digest; `schemas --json-schema` says why
        digest = hashlib.sha256(canonical_bytes(exported)).hexdigest()
        added = envelope.get("created") if isinstance(envelope.get("created"), str) else None
        rows[schema_id] = {"id": schema_id, "sha256": digest, "kind": "python", "added": added}
    return list(rows.values())
