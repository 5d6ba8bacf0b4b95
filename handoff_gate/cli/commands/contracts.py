"""``handoff-gate contracts add|list|show``: the JSON Schema contracts a run stores.

What each action prints and refuses: docs/protocol.md. ``list`` names the Python
contracts too (``python``), digested as their JSON Schema export, since a run's handoffs
may be reviewed against either.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from handoff_gate.cli.errors import OK, UsageError, flat, one_line
from handoff_gate.cli.inputs import existing_run, read_input
from handoff_gate.gates.gate import Gate, JsonSchemaError
from handoff_gate.gates.store.base import ContractConflict
from handoff_gate.gates.vocab.ids import SCHEMA_ID_PATTERN
from handoff_gate.gates.vocab.safe_text import visible


def schema_file(name: str, *, check: bool = False) -> dict[str, Any]:
    """A JSON Schema file (or ``-``) as a document, with ``check`` one the gate takes as a
    contract; exit 2 saying why when it is not, before anything is written."""
    try:
        document = Gate.json_schema_document(read_input(name))
        if check:
            Gate.check_json_schema(document)
    except JsonSchemaError as exc:
        raise UsageError(f"{flat(name)}: {exc}") from exc
    return document


def checked_id(schema_id: str) -> str:
    """A contract id of the grammar every contract id has (``name/v1``)."""
    if not SCHEMA_ID_PATTERN.fullmatch(schema_id):
        raise UsageError(f"contract id {flat(schema_id)!r} is not of the form 'name/v1'")
    return schema_id


def _add(gate: Gate, args: argparse.Namespace) -> int:
    document = schema_file(args.file)
    try:
        digest = gate.add_contract(args.run_dir, checked_id(args.schema_id), document)
    except JsonSchemaError as exc:
        raise UsageError(f"{flat(args.file)}: {exc}") from exc
    except ContractConflict as exc:
        raise UsageError(one_line(exc)) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot add the contract: {one_line(exc)}") from exc
    print(f"sha256 {digest}")
    return OK


def _list(gate: Gate, args: argparse.Namespace) -> int:
    rows = gate.run_contracts(existing_run(args.run_dir, gate.store))
    if args.json:
        print(json.dumps(rows, ensure_ascii=True, indent=2))
        return OK
    for row in rows:
        print(f"{visible(row['id']):24} {row['kind']:11} {row['sha256']}  {row['added'] or '-'}")
    return OK


def stored_document(gate: Gate, run: str, schema_id: str) -> dict[str, Any]:
    """The JSON Schema the run stores as ``schema_id``, checked against its digest."""
    existing_run(run, gate.store)
    found = [c for c in gate.store.contracts(run) if c.schema_id == schema_id]
    if not found:
        raise UsageError(
            f"the run stores no contract {flat(schema_id)!r}; see: handoff-gate contracts list"
        )
    try:
        return gate.stored_contract(run, found[0].sha256)
    except JsonSchemaError as exc:
        raise UsageError(f"contract {flat(schema_id)}: {exc}") from exc


def _show(gate: Gate, args: argparse.Namespace) -> int:
    document = stored_document(gate, args.run_dir, checked_id(args.schema_id))
    print(json.dumps(document, ensure_ascii=True, indent=2))
    return OK


def run(gate: Gate, args: argparse.Namespace) -> int:
    action = {"add": _add, "list": _list, "show": _show}[args.contracts_action]
    return action(gate, args)
