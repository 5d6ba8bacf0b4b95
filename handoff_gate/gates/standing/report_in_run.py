"""A handoff's report in its run: its current bytes, inspected against what came before.

Append-only contracts compare a handoff with the latest earlier approved one of the
same contract (``baseline``). This never raises: a handoff that cannot be read is a
blocked report.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import jiter

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.inspect.handoff_file import inspect_handoff
from handoff_gate.gates.standing.baseline import approval
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.submit.placement import misplaced, producer_finding
from handoff_gate.gates.submit.stored_contracts import contract_for
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import os_reason

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


def append_only_fields(registry: Registry | None, schema_id: object) -> frozenset[str]:
    """The fields the contract keeps append-only: its report depends on earlier
    handoffs' decisions, so it can change without its own bytes changing."""
    contract = (
        registry.get(schema_id) if registry is not None and isinstance(schema_id, str) else None
    )
    return frozenset(getattr(contract, "append_only", ()) or ())


def previous_payload(
    run: str | os.PathLike[str],
    handoff_id: str,
    schema_id: str,
    registry: Registry | None,
    store: RunStore,
    policy: Policy | None = None,
) -> dict[str, Any] | None:
    """The payload an append-only check compares against: what the next phase received
    (an approved edit included) of the latest earlier approved handoff of the same
    contract, or of any contract sharing an append-only field (a baton and its patches).
    ``None`` without append-only fields; unreadable handoffs are passed over.
    """

    fields = append_only_fields(registry, schema_id)
    if registry is not None and not fields:
        return None
    key = os.fspath(run)
    current = _order(handoff_id)
    for earlier in reversed(store.decided_ids(key)):
        if _order(earlier) >= current:
            continue
        try:
            data = store.handoff_bytes(key, earlier, MAX_HANDOFF_BYTES)
            envelope = Envelope.model_validate_json(data)
            schema = envelope.schema_id
            related = schema == schema_id or bool(fields & append_only_fields(registry, schema))
            what = approval(store, key, earlier, data, envelope, policy) if related else None
            if what is None:
                continue
            if what:  # the reviewer's edit is what the next phase received
                edited = store.edit_bytes(key, earlier, what, MAX_HANDOFF_BYTES)
                payload = jiter.from_json(edited, catch_duplicate_keys=True)
            else:
                produced = envelope.producer_bytes()
                payload = (
                    envelope.payload
                    if produced is None
                    else jiter.from_json(produced, catch_duplicate_keys=True)
                )
        except (OSError, ValueError):
            continue
        if not isinstance(payload, dict):
            continue
        if not fields or any(payload.get(name) is not None for name in fields):
            return payload
    return None


def _order(handoff_id: str) -> tuple[int, str]:
    return int(handoff_id.split("-", 1)[0]), handoff_id


def blocked_report(code: Code, message: str, sha256: str = "", size: int = 0) -> Report:
    """A report for bytes that could not be inspected at all (missing, unreadable, too big)."""
    return Report(sha256=sha256, size=size, findings=(Finding(code, "", Severity.BLOCK, message),))


def inspect_in_run(
    run: str | os.PathLike[str],
    handoff_id: str,
    registry: Registry,
    *,
    policy: Policy | None = None,
    store: RunStore,
) -> Report:
    """Inspect one handoff of a run. Never raises: any failure is a blocked report.
    The envelope must also name where it is stored and carry the producer's signature
    a policy's rule asks for."""
    key = os.fspath(run)
    try:
        data = store.handoff_bytes(key, handoff_id, MAX_HANDOFF_BYTES)
    except OversizeError as exc:
        digest = store.handoff_sha256(key, handoff_id)
        return blocked_report(Code.OVERSIZE, f"{exc}; not inspected", digest, exc.size)
    except (OSError, UnsafePathError) as exc:
        return blocked_report(
            Code.BAD_ENVELOPE, f"cannot read handoff {handoff_id!r}: {os_reason(exc)}"
        )
    in_store = store

    def previous_for(schema: str) -> object:
        """The previous payload of the contract the envelope names (``ABSENT``: none)."""
        try:
            found = previous_payload(key, handoff_id, schema, registry, in_store, policy)
        except (OSError, ValueError):
            return ABSENT
        return ABSENT if found is None else found

    try:
        report = inspect_handoff(
            data,
            registry,
            previous_for=previous_for,
            max_bytes=MAX_HANDOFF_BYTES,
            stored_contract=lambda schema, digest: contract_for(in_store, key, schema, digest),
        )
        return _placed(report, store.run_name(key), handoff_id, policy)
    except Exception as exc:  # inspection promises not to raise; fail closed if it does
        digest = hashlib.sha256(data).hexdigest()
        return blocked_report(Code.INTERNAL_ERROR, f"inspection failed: {exc!r}", digest, len(data))


def _placed(report: Report, run_name: str, handoff_id: str, policy: Policy | None) -> Report:
    """The report with the findings about the envelope's place and producer added."""
    envelope = report.envelope
    if envelope is None:
        return report
    extra = [misplaced(envelope, run_name, handoff_id)]
    if policy is not None:
        extra.append(producer_finding(envelope, run_name, policy))
    found = tuple(f for f in extra if f is not None)
    return replace(report, findings=report.findings + found) if found else report
