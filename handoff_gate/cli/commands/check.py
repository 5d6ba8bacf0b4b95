"""``handoff-gate check``: inspect a handoff file, or a bare payload with ``--schema``
or ``--json-schema``.

A handoff inside a run is inspected in its run (so append-only checks see the previous
handoff); any other file is inspected on its own. With ``--json-schema FILE`` the
contract is the JSON Schema document itself, named in the report by its digest
(``sha256:…``) unless ``--schema`` names it.

Two digests can describe one handoff, and a script must not mistake one for the other:
the payload's bytes (what a producer emitted, what ``check`` of a bare payload hashes)
and the handoff file ``submit`` stored around them (what a decision binds to). So the
report says which ``sha256`` is (``sha256_of``) and gives the payload's as well
(``payload_sha256``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import FAIL, OK, UsageError, flat
from handoff_gate.cli.inputs import read_input, setup_from
from handoff_gate.cli.report_text import payload_sha256, print_report
from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaContract,
    JsonSchemaError,
    contract_from_json_schema,
    read_json_schema,
    schema_sha256,
)
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.inspect.handoff_file import inspect_file
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.durable import read_bounded
from handoff_gate.gates.store.filesystem import FilesystemStore, is_run
from handoff_gate.gates.vocab.ids import ID_PATTERN
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.report import Report

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


def _is_envelope(path: Path) -> bool:
    """Whether the file looks like a stored handoff (an object with ``format``)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return b'"format"' in head and b"handoff-gate/" in head


def inspect_path(
    path: Path, schema: str | None, contracts: Registry, rules: Policy | None = None
) -> Report:
    """The report for ``path``: in its run when it is a stored handoff of one."""
    if path.is_dir():
        raise UsageError(f"{flat(str(path))} is a directory, not a file")
    if not path.is_file():
        raise UsageError(f"no such file: {flat(str(path))}")
    stem = path.name.removesuffix(".json")
    in_run = path.parent.name == "handoffs" and is_run(path.parent.parent)
    if schema is None and in_run and ID_PATTERN.match(stem) and path.suffix == ".json":
        run = str(path.parent.parent)
        return inspect_in_run(run, stem, contracts, policy=rules, store=FilesystemStore())
    if schema is None and not _is_envelope(path):
        print(
            f"hint: {flat(str(path))} is not a stored handoff; for a bare payload, name its "
            "contract with --schema ID (see: handoff-gate schemas)",
            file=sys.stderr,
        )
    return inspect_file(path, contracts, schema_id=schema, max_bytes=MAX_HANDOFF_BYTES)


def json_schema_contract(name: str) -> tuple[str, JsonSchemaContract]:
    """The digest and contract of a JSON Schema file; a document that is not a usable
    schema is a one-line usage error saying why."""
    try:
        schema = read_json_schema(read_input(name))
        return schema_sha256(schema), contract_from_json_schema(schema)
    except JsonSchemaError as exc:
        raise UsageError(f"{flat(name)}: {exc}") from exc


def _payload_digest(path: Path, report: Report, in_envelope: bool) -> str | None:
    """The payload's sha256: a bare payload's is the report's own; a handoff file's is
    that of the producer's bytes inside it, read again and trusted only if the file
    still hashes to what was inspected."""
    if not in_envelope:
        return report.sha256 or None
    try:
        return payload_sha256(read_bounded(path, MAX_HANDOFF_BYTES), report)
    except (OSError, ValueError):
        return None


def run(args: argparse.Namespace) -> int:
    in_envelope = args.json_schema is None and args.schema is None
    if args.json_schema is not None:
        digest, model = json_schema_contract(args.json_schema)
        label = args.schema or f"sha256:{digest}"
        path = Path(args.path)
        if path.is_dir() or not path.is_file():
            inspect_path(path, label, {})  # the same "is a directory" / "no such file"
        report = inspect_file(path, {label: model}, schema_id=label, max_bytes=MAX_HANDOFF_BYTES)
    else:
        setup = setup_from(args)
        report = inspect_path(Path(args.path), args.schema, setup.contracts, setup.policy)
    payload_digest = _payload_digest(Path(args.path), report, in_envelope)
    if args.json:
        body: dict[str, object] = {}
        for key, value in report.to_json().items():
            body[key] = value
            if key == "sha256":  # what it is of, and the other digest, beside it
                body["sha256_of"] = "handoff_file" if in_envelope else "payload"
                body["payload_sha256"] = payload_digest
        print(json.dumps(body, ensure_ascii=True, indent=2))
    else:
        print_report(args.path, report, payload_sha256=payload_digest, in_envelope=in_envelope)
    return OK if report.approvable else FAIL
