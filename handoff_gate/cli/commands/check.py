"""``handoff-gate check``: inspect a handoff file, or a bare payload with ``--schema``
or ``--json-schema``.

A handoff inside a run is inspected in its run (so append-only checks see the previous
handoff). Two digests can describe one handoff, the payload's bytes and the handoff file
a decision binds to, so the report says which ``sha256`` is (``sha256_of``) and gives
the payload's as well.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from handoff_gate.cli.commands.contracts import schema_file
from handoff_gate.cli.errors import FAIL, OK, UsageError, flat
from handoff_gate.cli.report_text import payload_sha256, print_report
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.report import Report


def _is_envelope(path: Path) -> bool:
    """Whether the file looks like a stored handoff (an object with ``format``)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return b'"format"' in head and b"handoff-gate/" in head


def _checked_path(path: Path) -> None:
    """A file to inspect: a directory or a missing path is a usage error."""
    if path.is_dir():
        raise UsageError(f"{flat(str(path))} is a directory, not a file")
    if not path.is_file():
        raise UsageError(f"no such file: {flat(str(path))}")


def _hint(path: Path, gate: Gate) -> None:
    """Say how to check a bare payload, when ``path`` is neither a run's handoff nor one."""
    if not gate.is_stored_handoff(path) and not _is_envelope(path):
        print(
            f"hint: {flat(str(path))} is not a stored handoff; for a bare payload, name its "
            "contract with --schema ID (see: handoff-gate schemas)",
            file=sys.stderr,
        )


def _payload_digest(path: Path, report: Report, in_envelope: bool) -> str | None:
    """The payload's sha256: a bare payload's is the report's own; a handoff file's is
    that of the producer's bytes inside it, read again and trusted only if the file
    still hashes to what was inspected."""
    if not in_envelope:
        return report.sha256 or None
    try:
        return payload_sha256(Gate.read_file(path), report)
    except (OSError, ValueError):
        return None


def run(gate: Gate, args: argparse.Namespace) -> int:
    in_envelope = args.json_schema is None and args.schema is None
    path = Path(args.path)
    if args.json_schema is not None:
        document = schema_file(args.json_schema, check=True)
        _checked_path(path)
        report = gate.check_file(path, schema_id=args.schema, json_schema=document)
    else:
        gate.setup.contracts  # noqa: B018 - the configuration before the file, as ever
        _checked_path(path)
        if args.schema is None:
            _hint(path, gate)
        report = gate.check_file(path, schema_id=args.schema)
    payload_digest = _payload_digest(path, report, in_envelope)
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
