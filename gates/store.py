"""The run directory: where handoffs, decisions and the audit log live on disk.

Layout (documented in docs/protocol.md)::

    RUN_DIR/handoffs/0003-plan.json    one envelope per handoff, never rewritten
    RUN_DIR/handoffs/.seq/0003         sequence reservations (empty marker files)
    RUN_DIR/decisions/0003-plan.json   at most one decision per handoff
    RUN_DIR/audit.jsonl                hash-chained event log

A directory is a run when it has a ``handoffs/`` folder. Every name read from disk or
from an argument is checked against the id pattern and must resolve inside the run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jiter

from handoff_gate.gates import audit
from handoff_gate.gates.findings import Code, Finding, Severity
from handoff_gate.gates.fsutil import (
    ID_PATTERN,
    PHASE_PATTERN,
    OversizeError,
    UnsafePathError,
    exclusive_create,
    inside,
    read_bounded,
    reserve,
    validate_id,
)
from handoff_gate.gates.report import Report

if TYPE_CHECKING:
    from handoff_gate.gates.registry import Registry

HANDOFFS = "handoffs"
DECISIONS = "decisions"
_SEQ = ".seq"
#: The cap on a handoff file read from a run (payload plus envelope): the same number as
#: ``gates.inspection.DEFAULT_MAX_BYTES`` (a test pins them equal), spelled out here so
#: that ``submit`` does not import inspection, which it never uses.
MAX_HANDOFF_BYTES = 32 * 1024 * 1024
#: Marks "no parsed payload from upstream"; ``None`` would mean JSON ``null``.
ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class HandoffRef:
    """Where one handoff lives; cheap to build from a file name, without reading it."""

    run_dir: Path
    id: str
    seq: int
    phase: str
    path: Path


def is_run(path: Path) -> bool:
    return (path / HANDOFFS).is_dir()


def find_runs(root: Path) -> list[Path]:
    """``root`` itself if it is a run, else its child runs sorted by name."""
    if is_run(root):
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if not p.is_symlink() and is_run(p))


def _ref(run_dir: Path, handoff_id: str) -> HandoffRef:
    validate_id(handoff_id)
    seq, phase = handoff_id.split("-", 1)
    return HandoffRef(run_dir, handoff_id, int(seq), phase, handoff_path(run_dir, handoff_id))


def handoff_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, HANDOFFS, f"{validate_id(handoff_id)}.json")


def decision_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, DECISIONS, f"{validate_id(handoff_id)}.json")


def list_handoffs(run_dir: Path) -> list[HandoffRef]:
    """Handoffs ordered by sequence number; temp files, symlinks and junk names skipped.

    One ``scandir`` and the folder's own path check: an entry that is a regular file
    (not a symlink) with a valid id for a name cannot lead out of the run, so it needs
    no check of its own (a run is re-listed on every change, at 10,000 handoffs too).
    """
    folder = run_dir / HANDOFFS
    if not folder.is_dir():
        return []
    refs: list[HandoffRef] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            stem = entry.name.removesuffix(".json")
            if stem == entry.name or not ID_PATTERN.match(stem):
                continue
            if entry.is_file(follow_symlinks=False):
                if not refs:
                    inside(run_dir, HANDOFFS)
                seq, phase = stem.split("-", 1)
                refs.append(HandoffRef(run_dir, stem, int(seq), phase, folder / entry.name))
    return sorted(refs, key=lambda r: (r.seq, r.id))


def _taken_seqs(run_dir: Path) -> set[int]:
    taken = {ref.seq for ref in list_handoffs(run_dir)}
    marks = run_dir / HANDOFFS / _SEQ
    if marks.is_dir():
        taken.update(int(m.name) for m in marks.iterdir() if m.name.isdigit())
    return taken


def _allocate_seq(run_dir: Path) -> int:
    """The next free sequence number, claimed with an exclusive marker file.

    Two submitters that pick the same number race on the marker; the loser moves on
    to the next number, so ids stay unique across phases without a lock.
    """
    marks = run_dir / HANDOFFS / _SEQ
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
    # Imported here: the envelope model is the one pydantic build a reader of runs (the
    # watcher's listing) does not need before its first paint.
    from handoff_gate.gates.envelope import Envelope

    if not PHASE_PATTERN.match(phase):
        raise ValueError(f"phase must match {PHASE_PATTERN.pattern}: {phase!r}")
    (run_dir / HANDOFFS).mkdir(parents=True, exist_ok=True)
    (run_dir / DECISIONS).mkdir(exist_ok=True)
    inside(run_dir, HANDOFFS, _SEQ)
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
        ref = _ref(run_dir, handoff_id)
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


def read_handoff_bytes(run_dir: Path, handoff_id: str, max_bytes: int = MAX_HANDOFF_BYTES) -> bytes:
    """The exact bytes of a handoff file, refusing symlinks and files over ``max_bytes``."""
    return read_bounded(handoff_path(run_dir, handoff_id), max_bytes)


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
    from handoff_gate.gates.decisions import Action, DecisionCorrupt, read_decision

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
    from handoff_gate.gates.envelope import (
        Envelope,
    )  # loaded here: listing and submitting don't need it

    fields = _append_only(registry, schema_id)
    if registry is not None and not fields:
        return None
    current = _ref(run_dir, handoff_id)
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
    from handoff_gate.gates.inspection import inspect_handoff

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
