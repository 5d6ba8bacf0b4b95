"""Inspect a stored handoff file: the envelope around the producer's output, then the
output itself through ``stages.inspect``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import jiter
import pydantic_core
from pydantic import ValidationError

from handoff_gate.gates.contracts.json_schema import ContractsById, JsonSchemaContract
from handoff_gate.gates.inspect import content_scan
from handoff_gate.gates.inspect.secret_patterns import ALL_KINDS, mask_secrets
from handoff_gate.gates.inspect.stages import (
    DEFAULT_MAX_BYTES,
    CollectorPaused,
    InspectOptions,
    failed_report,
    inspect,
)
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import Report

#: Resolves a stored contract: (schema id, sha256) -> the contract, or why there is none.
StoredContract = Callable[[str, str], "JsonSchemaContract | str"]


def inspect_handoff(
    file_bytes: bytes,
    registry: ContractsById,
    *,
    previous: object = ABSENT,
    previous_for: Callable[[str], object] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stored_contract: StoredContract | None = None,
) -> Report:
    """Never raises. ``sha256``/``size`` are the whole file's: what a decision binds to.

    An envelope naming ``schema_sha256`` is inspected against the contract
    ``stored_contract`` resolves (the run's), never the registry's of that id: none
    resolved blocks it. ``previous_for`` is asked for ``previous`` once the envelope's
    schema id is known, so a caller need not parse the file first.
    """
    try:
        with CollectorPaused():
            return _inspect_handoff(
                file_bytes, registry, previous, previous_for, max_bytes, stored_contract
            )
    except Exception as exc:
        return failed_report(file_bytes, None, exc)


def _inspect_handoff(
    file_bytes: bytes,
    registry: ContractsById,
    previous: object,
    previous_for: Callable[[str], object] | None,
    max_bytes: int,
    stored_contract: StoredContract | None = None,
) -> Report:
    digest, size = hashlib.sha256(file_bytes).hexdigest(), len(file_bytes)
    if size > max_bytes:
        return _bad(digest, size, Code.OVERSIZE, f"{size} bytes, over the {max_bytes}-byte limit")
    envelope, problem = _envelope(file_bytes)
    if envelope is None:
        return _bad(digest, size, Code.BAD_ENVELOPE, problem)
    producer = envelope.producer
    upstream: object = envelope.payload if envelope.has_payload else ABSENT
    try:
        produced = envelope.producer_bytes()
    except ValueError as exc:
        return _bad(digest, size, Code.BAD_ENVELOPE, str(exc), envelope)
    if produced is not None:
        subject = produced
    elif envelope.has_payload:
        subject, upstream = pydantic_core.to_json(envelope.payload), ABSENT
    else:
        subject = b""
    if previous_for is not None:
        previous = previous_for(envelope.schema_id)
    unresolved = ""
    contracts: ContractsById = registry
    if envelope.schema_sha256 is not None:
        found: JsonSchemaContract | str = "it is not inspected in its run"
        if stored_contract is not None:
            found = stored_contract(envelope.schema_id, envelope.schema_sha256)
        if isinstance(found, str):
            contracts, unresolved = {}, found
        else:
            contracts = {envelope.schema_id: found}
    options = InspectOptions(
        previous=previous,
        finish_reason=producer.finish_reason,
        refusal=producer.refusal,
        upstream_payload=upstream,
        max_bytes=max_bytes,
        tool_call=envelope.tool is not None,
    )
    report = inspect(subject, envelope.schema_id, contracts, options)
    if unresolved:  # why, not "load a module": none would count
        findings = report.findings
        missing = (
            replace(f, message=unresolved) if f.code is Code.UNKNOWN_SCHEMA else f for f in findings
        )
        report = replace(report, findings=tuple(missing))
    if any(f.code is Code.SECRET for f in report.findings):
        envelope = _masked_envelope(envelope)
    return replace(report, envelope=envelope, sha256=digest, size=size)


def _masked_envelope(envelope: Envelope) -> Envelope:
    update: dict[str, Any] = {"raw_base64": None}
    if envelope.raw is not None:
        update["raw"] = mask_secrets(envelope.raw)
    if envelope.has_payload:
        hits, _ = content_scan.scan(envelope.payload, ALL_KINDS, unsafe=False)
        update["payload"] = content_scan.mask_at(envelope.payload, hits)
    return envelope.model_copy(update=update)


def _envelope(file_bytes: bytes) -> tuple[Envelope | None, str]:
    if not file_bytes.strip():
        return None, "the handoff file is empty (still being written?)"
    try:
        obj = jiter.from_json(file_bytes, catch_duplicate_keys=True, allow_inf_nan=False)
    except ValueError as exc:
        cut = " (cut off: half-written?)" if str(exc).startswith("EOF") else ""
        return None, f"the handoff file is not valid JSON{cut}: {exc}"
    if not isinstance(obj, dict):
        return None, "the handoff file must be a JSON object"
    try:
        envelope = Envelope.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(file)'}: {e['msg']}"
            for e in exc.errors(include_url=False, include_input=False)[:5]
        )
        return None, f"the handoff file is not a valid envelope: {problems}"
    return envelope, ""


def _bad(
    digest: str, size: int, code: Code, message: str, envelope: Envelope | None = None
) -> Report:
    schema = envelope.schema_id if envelope is not None else None
    return Report(
        sha256=digest,
        size=size,
        findings=(Finding(code, "", Severity.BLOCK, message),),
        schema_id=schema,
        envelope=envelope,
    )


def inspect_file(
    path: str | Path,
    registry: ContractsById,
    *,
    schema_id: str | None = None,
    previous: object = ABSENT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Report:
    """A bare payload when ``schema_id`` is given, else a handoff file; at most
    ``max_bytes + 1`` bytes are ever held."""
    try:
        with Path(path).open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = b"" if size > max_bytes else handle.read(max_bytes + 1)
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        code = Code.EMPTY_INPUT if schema_id is not None else Code.BAD_ENVELOPE
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        message = f"cannot read {Path(path).name}: {reason}"
        return _unread(code, message, schema_id)
    if size > max_bytes or len(data) > max_bytes:
        size = max(size, len(data))
        message = f"{size} bytes, over the {max_bytes}-byte limit; not read"
        return _unread(Code.OVERSIZE, message, schema_id, size)
    if schema_id is not None:
        options = InspectOptions(previous=previous, max_bytes=max_bytes)
        return inspect(data, schema_id, registry, options)
    return inspect_handoff(data, registry, previous=previous, max_bytes=max_bytes)


def _unread(code: Code, message: str, schema_id: str | None, size: int = 0) -> Report:
    """No hash of bytes nobody looked at."""
    finding = Finding(code, "", Severity.BLOCK, message)
    return Report(sha256="", size=size, findings=(finding,), schema_id=schema_id)
