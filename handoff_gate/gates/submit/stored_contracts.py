"""Contracts stored in a run by digest: adding one, and resolving a handoff's from it.

A JSON Schema contract is data, so a run can carry it, and a reviewer needs no contract
module and never runs pipeline code. What is read back is not trusted: the document
must parse, hash to the digest the handoff names and translate into a contract, or the
handoff is blocked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.canonical import document_bytes as document_bytes
from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaContract,
    JsonSchemaError,
    contract_from_json_schema,
    read_json_schema,
    schema_sha256,
)
from handoff_gate.gates.store.base import RunStore
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
