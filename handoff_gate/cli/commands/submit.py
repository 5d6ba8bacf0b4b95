"""``handoff-gate submit``: store a payload as the run's next handoff and print its id.

What it prints, and its options: docs/protocol.md, "Command line". A missing run is made
and said on stderr, so a first submit works and a typo shows as a run nobody meant. The
verdict goes to stderr at once (stdout is the id alone, for scripts), so a producer
whose handoff is already blocked hears why now, not after a wait.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
from typing import Any

from handoff_gate.cli.commands.contracts import checked_id, schema_file
from handoff_gate.cli.errors import (
    OK,
    ArgumentError,
    UsageError,
    finding_line,
    one_line,
    os_problem,
    unknown_schema,
    warn,
)
from handoff_gate.cli.inputs import created_run, read_input
from handoff_gate.gates.gate import TOOL_PHASE, Gate, JsonSchemaError
from handoff_gate.gates.store.base import ContractConflict, RunStore
from handoff_gate.gates.vocab.findings import Severity
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.safe_text import visible


def _say_verdict(ref: HandoffRef, run: str, gate: Gate, payload_sha256: str) -> None:
    """On stderr: what each digest is of, then the verdict a reviewer will see (the
    handoff inspected in its run, under the policy): ``stored BLOCKED`` and every
    blocking finding, one line each, or ``stored for review``."""
    report = gate.inspect(ref.run, ref)
    label = shlex.quote(visible(run))
    print(
        f"{ref.id}: sha256 {ref.sha256} of the handoff file (a decision binds to it); "
        f"payload sha256 {payload_sha256} of the bytes given",
        file=sys.stderr,
    )
    if report.sha256 != ref.sha256:
        print(
            f"{ref.id}: stored, but the handoff file has changed since; see handoff-gate "
            f"show {label} {ref.id}",
            file=sys.stderr,
        )
        return
    blocking = [f for f in report.findings if f.severity is Severity.BLOCK]
    if not blocking:
        warned = len(report.findings)
        also = f", {warned} warning{'s' * (warned != 1)}" if warned else ""
        print(
            f"{ref.id}: stored for review (approvable{also}); full report: handoff-gate "
            f"show {label} {ref.id}",
            file=sys.stderr,
        )
        return
    print(f"{ref.id}: stored BLOCKED; it cannot be approved:", file=sys.stderr)
    for f in blocking:
        print(f"  {finding_line(f, severity=False)}", file=sys.stderr)


def _signer(args: argparse.Namespace, gate: Gate) -> str | None:
    """Whom the handoff is signed as: the key's principal, which the policy must name
    among the phase's producers (``None`` without a key)."""
    if gate.key is None:
        return None
    if gate.policy is None:
        raise UsageError("--key signs the handoff as a producer the policy names: give --policy")
    try:
        return gate.producer(args.phase)
    except ValueError as exc:
        raise UsageError(f"cannot sign: {one_line(exc)}") from exc


def _json_schema(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--json-schema FILE`` as a document checked to be a contract, before any write."""
    if args.json_schema is None:
        return None
    document = schema_file(args.json_schema, check=True)
    checked_id(args.schema)
    return document


def _stored(where: RunStore, run: str, schema_id: str) -> bool:
    """Whether the run already stores a contract of this id (``contracts add``)."""
    try:
        return where.exists(run) and any(c.schema_id == schema_id for c in where.contracts(run))
    except (ValueError, OSError):
        return False


#: A tool call's contract when none is given: any object, every key delivered as sent.
FREE_FORM = {"type": "object", "additionalProperties": True}
_TOOL_ONLY = ("call_id", "thread", "agent", "description")
_PLAIN_ONLY = ("from_role", "to_role", "finish_reason", "refusal", "allow_unknown_schema")


def _checked_form(args: argparse.Namespace) -> None:
    """A tool call or a plain handoff, each with only its own options."""

    def given(names: tuple[str, ...]) -> list[str]:
        return ["--" + n.replace("_", "-").replace("-role", "") for n in names if getattr(args, n)]

    if args.tool is None:
        if given(_TOOL_ONLY):
            raise ArgumentError(f"{', '.join(given(_TOOL_ONLY))}: only with --tool")
        missing = [f"--{name}" for name in ("phase", "schema") if not getattr(args, name)]
        if missing:
            raise ArgumentError(
                f"the following arguments are required: {', '.join(missing)} "
                "(or --tool NAME --call-id ID for a tool call)"
            )
        return
    if not args.call_id:
        raise ArgumentError("--tool needs --call-id (the call's id, as the framework gave it)")
    if args.schema:
        raise ArgumentError(
            "--schema: a tool call's contract is named by its --json-schema's digest"
        )
    if given(_PLAIN_ONLY):
        raise ArgumentError(f"{', '.join(given(_PLAIN_ONLY))}: not for a tool call")
    args.phase = args.phase or TOOL_PHASE


def run(gate: Gate, args: argparse.Namespace) -> int:
    _checked_form(args)
    where = gate.setup.store  # the whole configuration first, as a reviewer's would be
    if args.tool is not None:
        return _submit(gate, args, None)
    document = _json_schema(args)
    known = document is not None or args.schema in gate.contracts
    known = known or _stored(where, args.run_dir, args.schema)
    if not known:
        if not args.allow_unknown_schema:
            raise UsageError(
                f"{unknown_schema(args.schema)}; --allow-unknown-schema stores it blocked"
            )
        warn(f"unknown schema {args.schema!r}; it will be blocked")
    return _submit(gate, args, document)


def _submit(gate: Gate, args: argparse.Namespace, document: dict[str, Any] | None) -> int:
    """Store the handoff (or the tool call) and say what was stored."""
    payload = read_input(args.payload)
    signer = _signer(args, gate)
    created_run(args.run_dir, gate.store, "submit")
    common: dict[str, Any] = {
        "signer": signer,
        "idempotency_key": args.idempotency_key,
        "on_warning": warn,
        "expires_in": args.expires_in,
    }
    try:
        if args.tool is not None:
            given = args.json_schema
            ref = gate.submit_tool_call(
                args.run_dir,
                tool=args.tool,
                args=payload,
                call_id=args.call_id,
                json_schema=FREE_FORM if given is None else schema_file(given),
                description=args.description,
                agent=args.agent,
                thread=args.thread,
                phase=args.phase,
                **common,
            )
        else:
            ref = gate.submit(
                args.run_dir,
                payload,
                phase=args.phase,
                schema_id=args.schema,
                from_role=args.from_role,
                to_role=args.to_role,
                finish_reason=args.finish_reason,
                refusal=args.refusal,
                allow_unknown_schema=args.allow_unknown_schema,
                json_schema=document,
                **common,
            )
    except PermissionError as exc:
        raise os_problem("submit into", args.run_dir, exc) from exc
    except (ContractConflict, ValueError, OSError, JsonSchemaError) as exc:
        raise UsageError(f"cannot submit: {one_line(exc)}") from exc
    digest = hashlib.sha256(payload).hexdigest()
    if args.json:
        body = {"run": ref.run, "id": ref.id, "sha256": ref.sha256, "payload_sha256": digest}
        print(json.dumps(body, ensure_ascii=True), flush=True)
    else:
        print(ref.id, flush=True)
    _say_verdict(ref, args.run_dir, gate, digest)
    return OK
