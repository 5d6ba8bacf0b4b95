"""A reviewer's edit: its exact bytes, inspected against the handoff's own contract.

Editing must not become a way around inspection: the edited bytes go through the same
stages as a producer's, under the handoff's contract and against the same append-only
baseline, and only an approvable edit of an approvable handoff may be approved. The
producer's signals (``finish_reason``, ``refusal``) are not the edit's. A ``dict`` is
written as ``wait --out`` writes a payload, so what a script passes is what is kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.contracts.json_schema import ContractsById
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.gates.standing.report_in_run import previous_payload
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.stored_contracts import contract_for
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    from handoff_gate.gates.audit.decision_record import Decision
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.vocab.report import Report

#: What ``edited_payload=`` takes: the edited payload's bytes, or a JSON object.
EditedPayload = bytes | Mapping[str, Any]


def edit_bytes_of(edited: EditedPayload) -> bytes:
    """The bytes an edit is kept, hashed and inspected as; ``TypeError`` for other types."""
    if isinstance(edited, bytes | bytearray | memoryview):
        return bytes(edited)
    if isinstance(edited, Mapping):
        return (json.dumps(dict(edited), ensure_ascii=True, indent=2) + "\n").encode("ascii")
    raise TypeError(f"edited_payload must be bytes or a dict, not {type(edited).__name__}")


def inspect_edit(
    store: RunStore,
    run: str | os.PathLike[str],
    handoff_id: str,
    original: Report,
    data: bytes,
    registry: Registry,
) -> Report:
    """The edit's report: ``data`` inspected against the contract ``original`` (the
    handoff's report in its run) names, after the same earlier handoffs. Never raises."""
    schema = original.schema_id
    try:
        found = (
            previous_payload(run, handoff_id, schema, registry, store)
            if schema is not None
            else None
        )
    except (OSError, ValueError):
        found = None
    previous: object = ABSENT if found is None else found
    # A tool call's edit crosses as the reviewer wrote it, as the call itself would.
    envelope = original.envelope
    return inspect(
        data,
        schema,
        _contracts(store, os.fspath(run), original, registry),
        InspectOptions(
            previous=previous,
            max_bytes=MAX_HANDOFF_BYTES,
            tool_call=envelope is not None and envelope.tool is not None,
        ),
    )


def _contracts(store: RunStore, run: str, original: Report, registry: Registry) -> ContractsById:
    """The contracts the edit is inspected against: for a handoff that names a contract
    stored in the run, that document's (as its own inspection used), never a class of
    the same id; else ``registry``."""
    envelope = original.envelope
    if envelope is None or envelope.schema_sha256 is None or original.schema_id is None:
        return registry
    stored = contract_for(store, run, original.schema_id, envelope.schema_sha256)
    if isinstance(stored, str):  # the run cannot supply it: the edit is unknown_schema too
        return {k: v for k, v in registry.items() if k != original.schema_id}
    return {**registry, original.schema_id: stored}


def kept_edit(
    store: RunStore,
    run: str | os.PathLike[str],
    decision: Decision,
    original: Report,
    registry: Registry,
) -> Report:
    """The report of the edit ``decision`` approves, read back and checked against its
    digest (``OSError`` when missing or altered: the caller then delivers nothing)."""
    if decision.edited_sha256 is None:
        raise ValueError(f"the decision on {decision.handoff} approves no edit")
    data = store.edit_bytes(
        os.fspath(run), decision.handoff, decision.edited_sha256, MAX_HANDOFF_BYTES
    )
    return inspect_edit(store, run, decision.handoff, original, data, registry)


def edit_problem(report: Report) -> str | None:
    """Why an edit's report cannot be approved, in one line; ``None`` when it can."""
    if report.approvable and report.delivered is not None:
        return None
    codes = ", ".join(sorted({f.code.value for f in report.blocking})) or "no payload"
    return f"the edited payload is not approvable ({codes})"
