"""Submitting: a producer's exact bytes become the run's next handoff.

The payload is not judged here (a broken handoff is still recorded, so a person sees it
blocked); only the bookkeeping around it must be right. Sequence numbers are claimed
with exclusive marker files, so concurrent submitters get distinct ids without a lock.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from handoff_gate.gates.run import audit
from handoff_gate.gates.store.durable import exclusive_create, inside, reserve
from handoff_gate.gates.store.filesystem import (
    DECISIONS,
    HANDOFFS,
    SEQ,
    HandoffRef,
    list_handoffs,
    ref_of,
)
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.ids import PHASE_PATTERN


def _taken_seqs(run_dir: Path) -> set[int]:
    taken = {ref.seq for ref in list_handoffs(run_dir)}
    marks = run_dir / HANDOFFS / SEQ
    if marks.is_dir():
        taken.update(int(m.name) for m in marks.iterdir() if m.name.isdigit())
    return taken


def _allocate_seq(run_dir: Path) -> int:
    """The next free sequence number, claimed with an exclusive marker file.

    Two submitters that pick the same number race on the marker; the loser moves on
    to the next number, so ids stay unique across phases without a lock.
    """
    marks = run_dir / HANDOFFS / SEQ
    marks.mkdir(parents=True, exist_ok=True)
    seq = max(_taken_seqs(run_dir), default=0) + 1
    while not reserve(marks / f"{seq:04d}"):
        seq += 1
    return seq


def _encode_raw(payload: bytes) -> dict[str, str]:
    try:
        return {"raw": payload.decode("utf-8")}
    except UnicodeDecodeError:
        return {"raw_base64": base64.b64encode(payload).decode("ascii")}


def submit(
    run_dir: Path,
    payload: bytes,
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
) -> HandoffRef:
    """Store ``payload`` (the producer's exact bytes) as the run's next handoff.

    The payload is not judged here: a broken handoff is still recorded so a person
    sees it blocked. Raises ``ValueError`` for bad bookkeeping (phase, roles, schema).
    """
    if not PHASE_PATTERN.match(phase):
        raise ValueError(f"phase must match {PHASE_PATTERN.pattern}: {phase!r}")
    (run_dir / HANDOFFS).mkdir(parents=True, exist_ok=True)
    (run_dir / DECISIONS).mkdir(exist_ok=True)
    inside(run_dir, HANDOFFS, SEQ)
    producer = {
        "finish_reason": finish_reason,
        "refusal": refusal,
        "model": model,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
    }
    base = {
        "run": run_dir.resolve().name,
        "phase": phase,
        "from": from_role,
        "to": to_role,
        "schema": schema_id,
        "created": audit.now_iso(),
        "producer": {k: v for k, v in producer.items() if v is not None},
        **_encode_raw(payload),
    }
    if upstream_payload is not ABSENT:
        base["payload"] = upstream_payload
    Envelope.model_validate({"id": "0001-x", "seq": 1, **base})
    try:
        json.dumps(base, allow_nan=False)
    except TypeError as exc:
        raise ValueError(f"upstream_payload is not JSON data: {exc}") from exc
    while True:
        seq = _allocate_seq(run_dir)
        handoff_id = f"{seq:04d}-{phase}"
        envelope = {"format": "handoff-gate/1", "id": handoff_id, "seq": seq, **base}
        data = (json.dumps(envelope, ensure_ascii=True, indent=2, allow_nan=False) + "\n").encode()
        ref = ref_of(run_dir, handoff_id)
        try:
            exclusive_create(ref.path, data)
        except FileExistsError:
            continue
        audit.append(
            run_dir,
            audit.Event.HANDOFF_SUBMITTED,
            handoff=handoff_id,
            schema=schema_id,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
        )
        return ref
