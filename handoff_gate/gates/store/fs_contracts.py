"""A run folder's stored contracts: one file per digest, one claim per contract id.

``contracts/SHA256.json`` holds a document, ``contracts/ids/NAME@vN.json`` the id's claim
(docs/protocol.md, *Layout*), both created exclusively as handoffs are. The document is
written first, so a claim never names a digest that is not stored. Documents read back
are not trusted: ``stored_contracts`` above the seam checks them against their digest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from handoff_gate.gates.store.base import ContractConflict, StoredContract
from handoff_gate.gates.store.durable import exclusive_create, inside, read_bounded
from handoff_gate.gates.vocab.ids import SCHEMA_ID_PATTERN

CONTRACTS = "contracts"
IDS = "ids"
KIND_JSON_SCHEMA = "json-schema"
#: A stored document is a page of text (``json_schema.MAX_SCHEMA_BYTES``).
MAX_DOCUMENT_BYTES = 1024 * 1024
_MAX_CLAIM_BYTES = 4096
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


def checked(schema_id: str, sha256: str) -> None:
    """Refuse, before any write, what the database's checks would refuse less clearly."""
    if not SCHEMA_ID_PATTERN.match(schema_id):
        raise ValueError(f"contract id {schema_id!r} is not of the form 'name/v1'")
    if not _SHA256.match(sha256):
        raise ValueError(f"not a sha256 digest: {sha256!r}")


def _claim_name(schema_id: str) -> str:
    return schema_id.replace("/", "@") + ".json"


def add_contract(run_dir: Path, schema_id: str, sha256: str, document: bytes, added: str) -> bool:
    checked(schema_id, sha256)
    if len(document) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"the contract is over the {MAX_DOCUMENT_BYTES}-byte limit")
    claim = inside(run_dir, CONTRACTS, IDS, _claim_name(schema_id))
    if claim.exists():  # refused before anything is written; the claim below decides races
        return _same_claim(claim, schema_id, sha256)
    (run_dir / CONTRACTS / IDS).mkdir(parents=True, exist_ok=True)
    # Stored before, under this or another id, is fine: a digest names its content.
    with contextlib.suppress(FileExistsError):
        exclusive_create(inside(run_dir, CONTRACTS, f"{sha256}.json"), document)
    record = {"id": schema_id, "sha256": sha256, "kind": KIND_JSON_SCHEMA, "added": added}
    try:
        exclusive_create(claim, json.dumps(record).encode() + b"\n")
    except FileExistsError:
        return _same_claim(claim, schema_id, sha256)
    return True


def _same_claim(claim: Path, schema_id: str, sha256: str) -> bool:
    """``False`` when the stored claim names ``sha256``; else ``ContractConflict``."""
    stored = _read_claim(claim)
    found = stored.sha256 if stored is not None else "(unreadable)"
    if found != sha256:
        raise ContractConflict(schema_id, found, sha256)
    return False


def _read_claim(path: Path) -> StoredContract | None:
    try:
        value = json.loads(read_bounded(path, _MAX_CLAIM_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    fields = [value.get(k) for k in ("id", "sha256", "kind", "added")]
    if not all(isinstance(f, str) for f in fields):
        return None
    schema_id, sha256, kind, added = (str(f) for f in fields)
    if path.name != _claim_name(schema_id) or not _SHA256.match(sha256):
        return None
    return StoredContract(schema_id, sha256, kind, added)


def contracts_in(run_dir: Path) -> list[StoredContract]:
    """Every readable claim of the run, by id; junk names and records left out."""
    folder = run_dir / CONTRACTS / IDS
    try:
        inside(run_dir, CONTRACTS, IDS)
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".json"))
    except (OSError, ValueError):
        return []
    found = (_read_claim(folder / name) for name in names if not name.startswith("."))
    return sorted((c for c in found if c is not None), key=lambda c: c.schema_id)


def document(run_dir: Path, sha256: str) -> bytes | None:
    """The bytes stored under ``sha256``; ``None`` when absent or not a plain file."""
    if not _SHA256.match(sha256):
        return None
    try:
        return read_bounded(inside(run_dir, CONTRACTS, f"{sha256}.json"), MAX_DOCUMENT_BYTES)
    except (OSError, ValueError):
        return None
