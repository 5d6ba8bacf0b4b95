"""``handoff-gate contracts add|list|show``: the JSON Schema contracts a run stores.

``add RUN SCHEMA_ID FILE.json`` stores a document once and prints ``sha256 DIGEST``; the
same document again prints the same line, another document under a stored id exits 2
naming both digests, and a document the gate refuses (invalid for its draft, a ``$ref``
outside itself) exits 2 with one line saying why. ``list RUN [--json]`` names every
contract the run's handoffs can be reviewed against: the stored ones (``json-schema``)
and the Python contracts its handoffs name (``python``: built-ins and ``--schemas``
modules, digested as their JSON Schema export).
``show RUN SCHEMA_ID`` prints a stored document, checked against its digest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

import jiter
from pydantic import PydanticUserError

from handoff_gate.cli.errors import OK, UsageError, flat, one_line
from handoff_gate.cli.inputs import existing_run, read_input, setup_from, store
from handoff_gate.gates.contracts.json_schema import JsonSchemaError, read_json_schema
from handoff_gate.gates.contracts.json_schema import canonical_bytes as canonical
from handoff_gate.gates.contracts.registry import SCHEMA_ID, Registry
from handoff_gate.gates.store.base import ContractConflict, RunStore
from handoff_gate.gates.submit.stored_contracts import add_contract, stored_schema
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible


def schema_file(name: str) -> dict[str, Any]:
    """A JSON Schema file (or ``-``) as a document; exit 2 when it is not one."""
    try:
        return read_json_schema(read_input(name))
    except JsonSchemaError as exc:
        raise UsageError(f"{flat(name)}: {exc}") from exc


def checked_id(schema_id: str) -> str:
    """A contract id of the grammar every contract id has (``name/v1``)."""
    if not SCHEMA_ID.fullmatch(schema_id):
        raise UsageError(f"contract id {flat(schema_id)!r} is not of the form 'name/v1'")
    return schema_id


def _add(args: argparse.Namespace, where: RunStore) -> int:
    document = schema_file(args.file)
    try:
        digest = add_contract(where, args.run_dir, checked_id(args.schema_id), document)
    except JsonSchemaError as exc:
        raise UsageError(f"{flat(args.file)}: {exc}") from exc
    except ContractConflict as exc:
        raise UsageError(one_line(exc)) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot add the contract: {one_line(exc)}") from exc
    print(f"sha256 {digest}")
    return OK


def _python_rows(where: RunStore, run: str, contracts: Registry) -> list[dict[str, Any]]:
    """The Python contracts the run's handoffs name without a stored digest, each once,
    added when the first of them was submitted."""
    rows: dict[str, dict[str, Any]] = {}
    for handoff_id in where.handoff_ids(run):
        try:
            envelope = jiter.from_json(where.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES))
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
        digest = hashlib.sha256(canonical(exported)).hexdigest()
        added = envelope.get("created") if isinstance(envelope.get("created"), str) else None
        rows[schema_id] = {"id": schema_id, "sha256": digest, "kind": "python", "added": added}
    return list(rows.values())


def _list(args: argparse.Namespace, where: RunStore) -> int:
    contracts = setup_from(args, where).contracts
    run = existing_run(args.run_dir, where)
    stored = [
        {"id": c.schema_id, "sha256": c.sha256, "kind": c.kind, "added": c.added}
        for c in where.contracts(run)
    ]
    rows = sorted(
        stored + _python_rows(where, run, contracts),
        key=lambda r: (str(r["id"]), str(r["kind"])),
    )
    if args.json:
        print(json.dumps(rows, ensure_ascii=True, indent=2))
        return OK
    for row in rows:
        print(f"{visible(row['id']):24} {row['kind']:11} {row['sha256']}  {row['added'] or '-'}")
    return OK


def stored_document(where: RunStore, run: str, schema_id: str) -> dict[str, Any]:
    """The JSON Schema the run stores as ``schema_id``, checked against its digest."""
    existing_run(run, where)
    found = [c for c in where.contracts(run) if c.schema_id == schema_id]
    if not found:
        raise UsageError(
            f"the run stores no contract {flat(schema_id)!r}; see: handoff-gate contracts list"
        )
    try:
        return stored_schema(where, run, found[0].sha256)
    except JsonSchemaError as exc:
        raise UsageError(f"contract {flat(schema_id)}: {exc}") from exc


def _show(args: argparse.Namespace, where: RunStore) -> int:
    document = stored_document(where, args.run_dir, checked_id(args.schema_id))
    print(json.dumps(document, ensure_ascii=True, indent=2))
    return OK


def run(args: argparse.Namespace) -> int:
    where = store(args)  # the one store; list's contracts are loaded with it (setup_from)
    try:
        action = {"add": _add, "list": _list, "show": _show}[args.contracts_action]
        return action(args, where)
    finally:
        where.close()
