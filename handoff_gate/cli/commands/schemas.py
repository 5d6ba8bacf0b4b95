"""``handoff-gate schemas``: list the known contracts, or print one as strict JSON Schema.

With ``--run RUN`` the contracts that run stores (``contracts add``) are listed too, and
``--json-schema ID`` prints a stored one as it is stored (checked against its digest):
a stored document is already the JSON Schema, so it is not re-made strict.
"""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.commands.contracts import stored_document
from handoff_gate.cli.errors import OK, UsageError, unknown_schema
from handoff_gate.cli.inputs import existing_run, registry, store
from handoff_gate.gates.contracts.registry import RegistryError, strict_json_schema
from handoff_gate.gates.store.base import StoredContract
from handoff_gate.gates.vocab.safe_text import visible


def _stored(args: argparse.Namespace) -> list[StoredContract]:
    if args.run is None:
        return []
    where = store(args)
    try:
        return where.contracts(existing_run(args.run, where))
    finally:
        where.close()


def _print_stored(args: argparse.Namespace) -> None:
    where = store(args)
    try:
        document = stored_document(where, args.run, args.json_schema)
    finally:
        where.close()
    print(json.dumps(document, ensure_ascii=True, indent=2))


def run(args: argparse.Namespace) -> int:
    stored = _stored(args)
    if args.json_schema is not None and any(c.schema_id == args.json_schema for c in stored):
        _print_stored(args)
        return OK
    contracts = registry(args.schemas)
    if args.json_schema is not None:
        if args.json_schema not in contracts:
            raise unknown_schema(args.json_schema)
        try:
            schema = strict_json_schema(contracts[args.json_schema])
        except RegistryError as exc:
            raise UsageError(str(exc)) from exc
        print(json.dumps(schema, ensure_ascii=True, indent=2))
        return OK
    for schema_id in sorted(contracts):
        doc = (contracts[schema_id].__doc__ or "").strip().splitlines()
        print(f"{visible(schema_id):24} {visible(doc[0]) if doc else ''}")
    for contract in stored:
        print(f"{visible(contract.schema_id):24} stored in the run, sha256 {contract.sha256}")
    return OK
