"""A handoff's report in its run: its current bytes, inspected against what came before.

Append-only contracts compare a handoff with the latest earlier one of the same contract
that was not rejected, so inspecting in a run reads earlier envelopes and decisions. This
never raises: a handoff that cannot be read is a blocked report.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import jiter

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.inspect.stages import inspect_handoff
from handoff_gate.gates.run.decision_record import DecisionCorrupt, read_decision
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.store.filesystem import (
    handoff_path,
    list_handoffs,
    read_handoff_bytes,
    ref_of,
)
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.report import Report


def _schema_of(file_bytes: bytes) -> Any:
    envelope = jiter.from_json(file_bytes)
    return envelope.get("schema") if isinstance(envelope, dict) else None


def _append_only(registry: Registry | None, schema_id: Any) -> frozenset[str]:
    contract = (
        registry.get(schema_id) if registry is not None and isinstance(schema_id, str) else None
    )
    return frozenset(getattr(contract, "append_only", ()) or ())


def _rejected(run_dir: Path, handoff_id: str) -> bool:
    """Whether a readable decision rejects the handoff (unreadable counts as not rejected)."""
    try:
        decision = read_decision(run_dir, handoff_id)
    except DecisionCorrupt:
        return False
    return decision is not None and decision.action is Action.REJECT


def previous_payload(
    run_dir: Path, handoff_id: str, schema_id: str, registry: Registry | None = None
) -> dict[str, Any] | None:
    """The payload an append-only check compares against: the latest earlier handoff of
    the same contract that was not rejected.

    With a registry, "same contract" widens to any contract sharing an append-only field
    (a baton and its patches), and a payload counts only if it carries one of those
    fields; without append-only fields there is nothing to compare, so ``None``. Earlier
    handoffs that cannot be read or parsed into an object are passed over.
    """

    fields = _append_only(registry, schema_id)
    if registry is not None and not fields:
        return None
    current = ref_of(run_dir, handoff_id)
    for ref in reversed(list_handoffs(run_dir)):
        if (ref.seq, ref.id) >= (current.seq, current.id):
            continue
        try:
            envelope = Envelope.model_validate_json(
                read_handoff_bytes(run_dir, ref.id, MAX_HANDOFF_BYTES)
            )
            schema = envelope.schema_id
            related = schema == schema_id or bool(fields & _append_only(registry, schema))
            if not related or _rejected(run_dir, ref.id):
                continue
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


def blocked_report(code: Code, message: str, sha256: str = "", size: int = 0) -> Report:
    """A report for bytes that could not be inspected at all (missing, unreadable, too big)."""
    return Report(sha256=sha256, size=size, findings=(Finding(code, "", Severity.BLOCK, message),))


def _streamed_sha256(path: Path) -> str:
    """Hash a file too big to inspect, in chunks, so it can still be rejected by its bytes."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return ""
    return digest.hexdigest()


def inspect_in_run(run_dir: Path, handoff_id: str, registry: Registry) -> Report:
    """Inspect one handoff of a run. Never raises: any failure is a blocked report."""
    try:
        data = read_handoff_bytes(run_dir, handoff_id, MAX_HANDOFF_BYTES)
    except OversizeError as exc:
        digest = _streamed_sha256(handoff_path(run_dir, handoff_id))
        return blocked_report(Code.OVERSIZE, f"{exc}; not inspected", digest, exc.size)
    except (OSError, UnsafePathError) as exc:
        return blocked_report(Code.BAD_ENVELOPE, f"cannot read handoff {handoff_id!r}: {exc}")
    previous: dict[str, Any] | None = None
    try:
        schema = _schema_of(data)
        if isinstance(schema, str):
            previous = previous_payload(run_dir, handoff_id, schema, registry)
    except ValueError:
        previous = None
    try:
        if previous is None:  # inspection's own default means "no previous payload"
            return inspect_handoff(data, registry, max_bytes=MAX_HANDOFF_BYTES)
        return inspect_handoff(data, registry, previous=previous, max_bytes=MAX_HANDOFF_BYTES)
    except Exception as exc:  # inspection promises not to raise; fail closed if it does
        digest = hashlib.sha256(data).hexdigest()
        return blocked_report(Code.INTERNAL_ERROR, f"inspection failed: {exc!r}", digest, len(data))
