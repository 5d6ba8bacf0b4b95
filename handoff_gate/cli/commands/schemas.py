"""``handoff-gate schemas``: list the known contracts, or print one as strict JSON Schema."""

from __future__ import annotations

import argparse
import json

from handoff_gate.cli.errors import OK, UsageError, unknown_schema
from handoff_gate.cli.inputs import registry
from handoff_gate.gates.contracts.registry import RegistryError, strict_json_schema
from handoff_gate.gates.vocab.safe_text import visible


def run(args: argparse.Namespace) -> int:
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
    return OK
