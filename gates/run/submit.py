"""Submitting: a producer's exact bytes become the run's next handoff.

The payload is not judged here (a broken handoff is still recorded, so a person sees it
blocked); only the bookkeeping around it must be right. Sequence numbers are claimed
with exclusive marker files, so concurrent submitters get distinct ids without a lock.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jiter
from pydantic import BaseModel

from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.run import audit, schema_index
from handoff_gate.gates.run.decision_record import run_name_of
from handoff_gate.gates.run.placement import sign_handoff
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import HandoffRef, handoff_path
from handoff_gate.gates.store.select import store_for
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.envelope import FORMAT, Envelope
from handoff_gate.gates.vocab.ids import PHASE_PATTERN
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    from handoff_gate.gates.trust.signing_key import SigningKey

#: What ``submit`` accepts as the producer's output (see ``payload_bytes``).
Payload = bytes | str | dict[str, Any] | BaseModel


def payload_bytes(payload: Payload) -> bytes:
    """The bytes a payload is stored as: ``bytes`` exactly as given; ``str`` as UTF-8;
    a ``dict`` as compact JSON (UTF-8, no NaN); a pydantic model as ``model_dump_json()``.

    Pass the producer's own bytes whenever you have them: serialising a parsed object
    again hides truncation and duplicate keys that the raw reply would show.
    """
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


def submit(
    run: str | os.PathLike[str],
    payload: Payload,
    *,
    phase: str,
    schema_id: str,
    from_role: str | None = None,
    to_role: str | None = None,
    finish_reason: str | None = None,
    refusal: str | None = None,
    upstream_payload: Any = ABSENT,
    model: str | None = None,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    idempotency_key: str | None = None,
    registry: Registry | None = None,
    allow_unknown_schema: bool = False,
    store: RunStore | None = None,
    on_warning: Callable[[str], None] | None = None,
    key: SigningKey | None = None,
    signer: str | None = None,
) -> HandoffRef:
    """Store ``payload`` (the producer's output, see ``payload_bytes``) as the run's next handoff.

    The payload is not judged here: a broken handoff is still recorded so a person sees
    it blocked. ``ValueError`` for bad bookkeeping: a phase or role that does not fit, a
    ``schema_id`` that no contract in ``registry`` (default: built-ins and
    ``HANDOFF_GATE_SCHEMAS``) names unless ``allow_unknown_schema``, or an
    ``idempotency_key`` already used in this run for other bytes. With a key already used
    for the same bytes, nothing is written and the first handoff is returned, so a
    pipeline step that runs again after a crash does not submit twice.
    A run that does not exist yet is created, with its missing parent folders (as ``mkdir
    -p``) and without a word: the caller's own path is taken as meant (the CLI, where a
    person types it, says ``new run PATH``; ``store.create`` tells which call made it). A
    handoff that is stored but could not be logged is returned all the same (a retry would
    store it twice); ``on_warning`` is told, and ``audit --verify`` reports the gap.

    With ``key`` and ``signer`` (the producer's principal) the envelope carries the
    producer's SSHSIG over ``handoff_statement``, which a policy rule with ``producers``
    requires (``gates.run.placement``).
    """
    if not isinstance(run, str | os.PathLike):
        raise TypeError(f"run must be a path or a run id, not {type(run).__name__}")
    data = payload_bytes(payload)
    if not PHASE_PATTERN.match(phase):
        raise ValueError(f"phase must match {PHASE_PATTERN.pattern}: {phase!r}")
    if not allow_unknown_schema and schema_id not in (registry or load_registry()):
        raise ValueError(
            f"unknown schema {schema_id!r}: load its contract with HANDOFF_GATE_SCHEMAS "
            "or --schemas, or pass allow_unknown_schema=True"
        )
    store = store or store_for()
    # How the store addresses the run: as given (a path or a run id).
    where = os.fspath(run)
    producer = {
        "finish_reason": finish_reason,
        "refusal": refusal,
        "model": model,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
    }
    base = {
        "run": run_name_of(os.fspath(run), store),
        "phase": phase,
        "from": from_role,
        "to": to_role,
        "schema": schema_id,
        "created": audit.now_iso(),
        "producer": {k: v for k, v in producer.items() if v is not None},
        **_encode_raw(data),
    }
    if upstream_payload is not ABSENT:
        base["payload"] = upstream_payload
    Envelope.model_validate({"id": "0001-x", "seq": 1, **base})
    try:
        json.dumps(base, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"upstream_payload is not JSON data: {exc}") from exc
    written: list[bytes] = []

    if (key is None) != (signer is None):
        raise ValueError("signing a handoff needs both a key and the signer's principal name")

    def envelope(seq: int, handoff_id: str) -> bytes:
        if store.is_local and schema_index.start(Path(where)):
            schema_index.note(Path(where), schema_id, handoff_id)
        fields = {"format": FORMAT, "id": handoff_id, "seq": seq, **base}
        if key is not None and signer is not None:
            fields["signer"] = signer
            fields["signature"] = sign_handoff(
                run_name=str(base["run"]),
                handoff_id=handoff_id,
                payload=data,
                phase=phase,
                schema=schema_id,
                principal=signer,
                at=str(base["created"]),
                key=key,
            )
        text = json.dumps(fields, ensure_ascii=True, indent=2, allow_nan=False) + "\n"
        written.append(text.encode())
        return written[-1]

    stored = store.add_handoff(where, phase, envelope, idempotency_key=idempotency_key)
    run_dir = Path(where)
    ref = HandoffRef(run_dir, stored.id, stored.seq, phase, handoff_path(run_dir, stored.id))
    if not stored.created:
        _same_producer_bytes(store, where, stored.id, data, idempotency_key)
        return ref
    try:
        audit.append(
            where,
            audit.Event.HANDOFF_SUBMITTED,
            store=store,
            handoff=stored.id,
            schema=schema_id,
            sha256=hashlib.sha256(written[-1]).hexdigest(),
            size=len(written[-1]),
        )
    except OSError as exc:  # the handoff stands: failing here would make a retry submit twice
        if on_warning is not None:
            on_warning(f"{stored.id}: the handoff stands but was not logged: {exc}")
    return ref


def _same_producer_bytes(
    store: RunStore, run: str, handoff_id: str, data: bytes, key: str | None
) -> None:
    """Refuse a reused idempotency key whose first handoff carried other bytes."""
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
