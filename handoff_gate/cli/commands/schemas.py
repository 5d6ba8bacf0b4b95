"""``handoff-gate schemas``: list the known contracts, or print one as strict JSON Schema.

A contract a run stores (``--run``) is printed as stored: it is already the JSON Schema,
so it is not re-made strict.
"""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.commands.contracts import stored_document
from handoff_gate.cli.errors import OK, UsageError, unknown_schema
from handoff_gate.cli.inputs import existing_run
from handoff_gate.gates.gate import Gate, RegistryError
from handoff_gate.gates.vocab.safe_text import visible


def run(gate: Gate, args: argparse.Namespace) -> int:
    stored = [] if args.run is None else gate.store.contracts(existing_run(args.run, gate.store))
    if args.json_schema is not None and any(c.schema_id == args.json_schema for c in stored):
        document = stored_document(gate, args.run, args.json_schema)
        print(json.dumps(document, ensure_ascii=True, indent=2))
        return OK
    contracts = gate.contracts  # under the policy's pins, from --policy or the environment
    if args.json_schema is not None:
        if args.json_schema not in contracts:
            raise unknown_schema(args.json_schema)
        try:
            schema = gate.strict_json_schema(args.json_schema)
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
