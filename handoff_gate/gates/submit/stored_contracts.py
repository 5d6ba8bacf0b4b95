"""Contracts stored in a run by digest: adding one, resolving a handoff's from it, and
listing them with the Python contracts the run's handoffs name.

A JSON Schema contract is data, so a run can carry it, and a reviewer needs no contract
module and never runs pipeline code. What is read back is not trusted: the document
must parse, hash to the digest the handoff names and translate into a contract, or the
handoff is blocked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import jiter
from pydantic import PydanticUserError

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.canonical import document_bytes as document_bytes
from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaContract,
    JsonSchemaError,
    contract_from_json_schema,
    read_json_schema,
    schema_sha256,
)
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import os_reason


def add_contract(
    store: RunStore, run: str | os.PathLike[str], schema_id: str, schema: Mapping[str, Any]
) -> str:
    """``Gate.add_contract``; the document is checked before anything is written."""
    contract_from_json_schema(schema)
    digest = schema_sha256(schema)
    store.add_contract(
        os.fspath(run), schema_id, digest, document_bytes(schema), added=audit.now_iso()
    )
    return digest


def stored_schema(store: RunStore, run: str, sha256: str) -> dict[str, Any]:
    """The JSON Schema stored under ``sha256``, checked against it; ``JsonSchemaError``
    saying what is wrong (absent, not JSON, another content)."""
    data = store.contract_document(run, sha256)
    if data is None:
        raise JsonSchemaError(f"the run holds no contract with sha256 {sha256}")
    document = read_json_schema(data)
    found = schema_sha256(document)
    if found != sha256:
        raise JsonSchemaError(f"the contract stored as sha256 {sha256} has the content {found}")
    return document


def contract_for(
    store: RunStore, run: str, schema_id: str, sha256: str
) -> JsonSchemaContract | str:
    """The contract a handoff of ``schema_id`` naming ``sha256`` is inspected against, or
    why there is none. The digest must be stored under that id: a handoff cannot borrow
    a laxer contract stored under another id while the reviewer reads the id it names."""
    try:
        claims = store.contracts(run)
        if not any(c.schema_id == schema_id and c.sha256 == sha256 for c in claims):
            return (
                f"the run holds no contract {schema_id} with sha256 {sha256}; "
                "add it with `handoff-gate contracts add`"
            )
        return contract_from_json_schema(stored_schema(store, run, sha256))
    except JsonSchemaError as exc:
        return f"the handoff's contract cannot be used: {exc}"
    except OSError as exc:
        return f"the handoff's contract cannot be read: {os_reason(exc)}"


def run_contracts(store: RunStore, run: str, contracts: Registry) -> list[dict[str, Any]]:
    """``contracts list``: every contract the run's handoffs can be reviewed against, rows
    of ``id``, ``sha256``, ``kind`` (``json-schema``, or ``python`` digested as its JSON
    Schema export) and ``added``, sorted by id then kind."""
    stored = [
        {"id": c.schema_id, "sha256": c.sha256, "kind": c.kind, "added": c.added}
        for c in store.contracts(run)
    ]
    rows = stored + _python_rows(store, run, contracts)
    return sorted(rows, key=lambda r: (str(r["id"]), str(r["kind"])))


def _python_rows(store: RunStore, run: str, contracts: Registry) -> list[dict[str, Any]]:
    """The Python contracts the run's handoffs name without a stored digest, each once,
    added when the first of them was submitted."""
    rows: dict[str, dict[str, Any]] = {}
    for handoff_id in store.handoff_ids(run):
        try:
            envelope = jiter.from_json(store.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES))
        except (OSError, ValueError):
            continue
        if not isinstance(envelope, dict) or envelope.get("schema_sha256") is not None:
            continue
        schema_id = envelope.get("schema")
        if not isinstance(schema_id, str) or schema_id in rows or schema_id not in contracts:
            continue
        try:
            exported = contracts[schema_id].model_json_schema()
        except PydanticUserError:
            continue  # no JSON Schema to digest; `schemas --json-schema` says why
        digest = schema_sha256(exported)
        added = envelope.get("created") if isinstance(envelope.get("created"), str) else None
        rows[schema_id] = {"id": schema_id, "sha256": digest, "kind": "python", "added": added}
    return list(rows.values())
