"""Submitting: a producer's exact bytes become the run's next handoff.

The payload is not judged here (a broken handoff is still recorded, so a person sees it
blocked); only the bookkeeping around it must be right.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict, cast

import jiter
from pydantic import BaseModel

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.context import GateContext, Signing
from handoff_gate.gates.submit.placement import signed_schema
from handoff_gate.gates.submit.stored_contracts import add_contract
from handoff_gate.gates.trust.statement import handoff_statement
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.deadline import is_past, parse_at, parse_duration, stamp
from handoff_gate.gates.vocab.envelope import FORMAT, Envelope, ToolCall
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.ids import PHASE_PATTERN
from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

#: What ``submit`` accepts as the producer's output (see ``payload_bytes``).
Payload = bytes | str | dict[str, Any] | BaseModel


def payload_bytes(payload: Payload) -> bytes:
    """The bytes a payload is stored as. Pass the producer's own bytes whenever you have
    them: serialising a parsed object again hides truncation and duplicate keys that the
    raw reply would show."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogatepass")
    if isinstance(payload, BaseModel):
        return payload.model_dump_json().encode()
    if isinstance(payload, dict):
        try:
            return json.dumps(payload, ensure_ascii=False, allow_nan=False).encode()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"payload is not JSON data: {exc}") from exc
    raise TypeError(f"payload must be bytes, str, dict or a pydantic model, not {type(payload)}")


def _encode_raw(payload: bytes) -> dict[str, str]:
    try:
        return {"raw": payload.decode("utf-8")}
    except UnicodeDecodeError:
        return {"raw_base64": base64.b64encode(payload).decode("ascii")}


class About(TypedDict, total=False):
    """What a producer may say about its output, each recorded in the envelope as given
    (``upstream_payload``: the payload it worked from, any JSON value)."""

    from_role: str | None
    to_role: str | None
    finish_reason: str | None
    refusal: str | None
    upstream_payload: Any
    model: str | None
    input_tokens: int | None
    output_tokens: int | None


class _Named(TypedDict):
    """What every submit names: the phase and the contract (a required keyword each;
    ``Required`` is not read from a postponed annotation before Python 3.12)."""

    phase: str
    schema_id: str


class SubmitOptions(_Named, About, total=False):
    """The keywords of ``submit`` (``handoff_gate.submit`` and ``Gate.submit``), written
    once: what is submitted and how, beside what the producer says about it (``About``)."""

    idempotency_key: str | None
    allow_unknown_schema: bool
    signer: str | None
    on_warning: Callable[[str], None] | None
    json_schema: Mapping[str, Any] | None
    expires_in: timedelta | str | None
    expires_at: datetime | str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SubmitRequest:
    """What is submitted besides the payload, as ``submit`` takes it (see there)."""

    phase: str
    schema_id: str
    idempotency_key: str | None = None
    allow_unknown_schema: bool = False
    signing: Signing | None = None
    on_warning: Callable[[str], None] | None = None
    json_schema: Mapping[str, Any] | None = None
    tool: ToolCall | None = None
    expires_in: timedelta | str | None = None
    expires_at: datetime | str | None = None
    about: About = field(default_factory=lambda: About())

    @classmethod
    def of(cls, context: GateContext, options: SubmitOptions) -> SubmitRequest:
        """The request ``options`` make in ``context``: signed as ``GateContext.signing``
        says, and given the policy rule's deadline when none is asked for."""
        checked("submit", options, SubmitOptions)
        phase, expires_at = options["phase"], options.get("expires_at")
        expires_in = options.get("expires_in")
        if expires_at is None:
            expires_in = context.expires_in(phase, expires_in)
        return cls(
            phase=phase,
            schema_id=options["schema_id"],
            idempotency_key=options.get("idempotency_key"),
            allow_unknown_schema=options.get("allow_unknown_schema", False),
            signing=context.signing(phase, options.get("signer")),
            on_warning=options.get("on_warning"),
            json_schema=options.get("json_schema"),
            expires_in=expires_in,
            expires_at=expires_at,
            about=cast(About, {k: v for k, v in options.items() if k in _ABOUT}),
        )


_ABOUT = About.__optional_keys__


def submit(
    context: GateContext, run: str | os.PathLike[str], payload: Payload, request: SubmitRequest
) -> HandoffRef:
    """Store ``payload`` (see ``payload_bytes``) as the run's next handoff.

    ``ValueError`` for bad bookkeeping: a phase or role that does not fit, an unknown
    ``schema_id`` unless ``allow_unknown_schema``, an ``idempotency_key`` already used in
    this run for other bytes, or a deadline both ways or already past. A key already used
    for the same bytes writes nothing and returns the first handoff, so a step that runs
    again after a crash does not submit twice. A missing run is created (as ``mkdir
    -p``). A handoff stored but not logged is returned all the same (a retry would store
    it twice); ``on_warning`` is told, and ``audit --verify`` reports the gap.

    With ``json_schema`` the document is stored in the run first and the envelope names
    its digest (``schema_sha256``), so every reader inspects against exactly that
    document; a contract the run already stores under ``schema_id`` is named the same way.
    """
    if not isinstance(run, str | os.PathLike):
        raise TypeError(f"run must be a path or a run id, not {type(run).__name__}")
    where, store = os.fspath(run), context.store
    phase, schema_id = request.phase, request.schema_id
    data = payload_bytes(payload)
    if not PHASE_PATTERN.match(phase):
        raise ValueError(f"phase must match {PHASE_PATTERN.pattern}: {phase!r}")
    if request.json_schema is not None:
        contract: str | None = add_contract(store, where, schema_id, request.json_schema)
    else:
        contract = _stored_digest(store, where, schema_id)
    if contract is None and not request.allow_unknown_schema and schema_id not in context.contracts:
        raise ValueError(
            f"unknown schema {schema_id!r}: load its contract with HANDOFF_GATE_SCHEMAS "
            "or --schemas, or pass allow_unknown_schema=True"
        )
    base = _envelope_fields(store.run_name(where), data, request, contract)
    if request.tool is not None:
        tool = request.tool.model_dump(mode="json", exclude_none=True)
        base.update(kind="tool_call", tool=tool)
    deadline = _deadline(request.expires_in, request.expires_at)
    if deadline is not None:
        base["expires_at"] = deadline
    written: list[bytes] = []

    def envelope(seq: int, handoff_id: str) -> bytes:
        written.append(_envelope_bytes(base, seq, handoff_id, data, request.signing))
        return written[-1]

    key = request.idempotency_key
    stored = store.add_handoff(where, phase, envelope, idempotency_key=key)
    if not stored.created:
        existing = _same_producer_bytes(store, where, stored.id, data, key)
        return HandoffRef(where, stored.id, hashlib.sha256(existing).hexdigest())
    digest = hashlib.sha256(written[-1]).hexdigest()
    try:
        audit.append(
            where,
            audit.Event.HANDOFF_SUBMITTED,
            store=store,
            handoff=stored.id,
            schema=schema_id,
            sha256=digest,
            size=len(written[-1]),
        )
    except OSError as exc:  # the handoff stands: failing here would make a retry submit twice
        if request.on_warning is not None:
            request.on_warning(f"{stored.id}: the handoff stands but was not logged: {exc}")
    return HandoffRef(where, stored.id, digest)


def _deadline(expires_in: timedelta | str | None, expires_at: datetime | str | None) -> str | None:
    """The envelope's ``expires_at`` from either spelling, checked to be in the future."""
    if expires_in is not None and expires_at is not None:
        raise ValueError("give expires_in or expires_at, not both")
    if expires_in is not None:
        delta = parse_duration(expires_in) if isinstance(expires_in, str) else expires_in
        if delta <= timedelta(0):
            raise ValueError(f"expires_in must be positive, not {delta}")
        expires_at = datetime.now(UTC) + delta
    if expires_at is None:
        return None
    moment = parse_at(expires_at) if isinstance(expires_at, str) else expires_at
    text = stamp(moment)
    if is_past(text):
        raise ValueError(f"the deadline {text} has already passed")
    return text


def _stored_digest(store: RunStore, run: str, schema_id: str) -> str | None:
    """The digest the run stores ``schema_id`` under, if it stores it."""
    if not store.exists(run):
        return None
    found = (c.sha256 for c in store.contracts(run) if c.schema_id == schema_id)
    return next(found, None)


def _envelope_fields(
    run_name: str, data: bytes, request: SubmitRequest, schema_sha256: str | None
) -> dict[str, Any]:
    """Every envelope field but the id and number, checked to make a valid envelope."""
    about = request.about
    producer = {
        "finish_reason": about.get("finish_reason"),
        "refusal": about.get("refusal"),
        "model": about.get("model"),
        "input_tokens": about.get("input_tokens"),
        "output_tokens": about.get("output_tokens"),
    }
    base: dict[str, Any] = {
        "run": run_name,
        "phase": request.phase,
        "from": about.get("from_role"),
        "to": about.get("to_role"),
        "schema": request.schema_id,
        **({} if schema_sha256 is None else {"schema_sha256": schema_sha256}),
        "created": audit.now_iso(),
        "producer": {k: v for k, v in producer.items() if v is not None},
        **_encode_raw(data),
    }
    upstream = about.get("upstream_payload", ABSENT)
    if upstream is not ABSENT:
        base["payload"] = upstream
    Envelope.model_validate({"id": "0001-x", "seq": 1, **base})
    try:
        json.dumps(base, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"upstream_payload is not JSON data: {exc}") from exc
    return base


def _envelope_bytes(
    base: dict[str, Any], seq: int, handoff_id: str, data: bytes, signing: Signing | None
) -> bytes:
    """The envelope as stored: its fields, numbered, signed by the producer if it signs."""
    fields = {"format": FORMAT, "id": handoff_id, "seq": seq, **base}
    if signing is not None:
        fields["signer"] = signing.signer
        statement = handoff_statement(
            run=str(base["run"]),
            handoff=handoff_id,
            sha256=hashlib.sha256(data).hexdigest(),
            phase=str(base["phase"]),
            schema=signed_schema(str(base["schema"]), base.get("schema_sha256")),
            principal=signing.signer,
            at=str(base["created"]),
            expires_at=base.get("expires_at"),
        )
        fields["signature"] = signing.key.sign(statement)
    return (json.dumps(fields, ensure_ascii=True, indent=2, allow_nan=False) + "\n").encode()


def _same_producer_bytes(
    store: RunStore, run: str, handoff_id: str, data: bytes, key: str | None
) -> bytes:
    """The stored envelope an idempotency key names; ``ValueError`` if its producer's
    bytes are not ``data``."""
    existing = store.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES)
    envelope = jiter.from_json(existing)
    raw = envelope.get("raw") if isinstance(envelope, dict) else None
    if isinstance(raw, str):
        first = raw.encode("utf-8", "surrogatepass")
    else:
        encoded = envelope.get("raw_base64") if isinstance(envelope, dict) else None
        first = base64.b64decode(encoded) if isinstance(encoded, str) else b""
    if first != data:
        raise ValueError(
            f"idempotency key {key!r} was used for {handoff_id} with other bytes; "
            "use a new key for a new payload"
        )
    return existing
