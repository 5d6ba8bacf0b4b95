"""Contracts stored in the run, as a reviewer's screen meets them: a handoff whose contract
arrives while the app runs is looked at again and becomes reviewable, and the field tree
says what each field is for (the contract's ``description``). The app is given no
contract module at all: everything it knows of the contract comes from the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tui_helpers import all_inspected, cursor_entry, make_app, screen_text, settle

from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.states import HandoffState

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ticket": {"type": "string", "minLength": 1, "description": "the refund ticket to close"},
        "amount": {"type": "integer", "minimum": 1, "description": "cents to give back"},
    },
    "required": ["ticket", "amount"],
    "additionalProperties": False,
}
RUN = "refunds"


def _handoff_naming(root: Path, digest: str) -> str:
    """A handoff made against a contract the run does not hold yet (a producer that
    submits before it adds the contract, or a copy of the run without its contracts)."""
    store = FilesystemStore(root)

    def envelope(seq: int, handoff_id: str) -> bytes:
        fields = {
            "format": "handoff-gate/1", "id": handoff_id, "seq": seq, "run": RUN,
            "phase": "refund", "schema": "refund/v1", "schema_sha256": digest,
            "created": "2026-01-15T09:30:00.000Z", "raw": '{"ticket": "T-1", "amount": 250}',
        }  # fmt: skip
        return json.dumps(fields, indent=2).encode()

    return store.add_handoff(RUN, "refund", envelope).id


async def test_a_contract_added_while_the_app_runs_makes_its_handoff_reviewable(
    root: Path,
) -> None:
    other = root.parent / "scratch"
    digest = Gate(FilesystemStore(other), contracts={}).add_contract("x", "refund/v1", SCHEMA)
    handoff = _handoff_naming(root, digest)
    app = make_app(root, {})
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        entry = cursor_entry(app)
        assert entry.key == (root / RUN, handoff)
        assert entry.state is HandoffState.BLOCKED
        Gate(FilesystemStore(root), contracts={}).add_contract(RUN, "refund/v1", SCHEMA)
        await settle(pilot, lambda: cursor_entry(app).state is HandoffState.PENDING)
        await settle(pilot, lambda: "cents to give back" in screen_text(app))
        assert "the refund ticket to close" in screen_text(app)
