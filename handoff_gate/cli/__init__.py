"""The ``handoff-gate`` command: the gate's operations for shells and pipelines.

Exit codes are a contract (docs/protocol.md): 0 success/approvable/approved,
1 blocked/refused/rejected, 2 usage or I/O error, 3 timed out, 4 changed after the
decision. Textual is imported only by ``watch`` and ``demo`` so the other commands
start fast. Anything taken from a payload or a decision is printed through
``gates.sanitize.visible`` so it can never drive the terminal.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.vocab.safe_text import visible

if TYPE_CHECKING:
    from pydantic import BaseModel

    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.run.waiting import WaitResult
    from handoff_gate.gates.vocab.report import Report

OK, FAIL, USAGE, TIMED_OUT, CHANGED = 0, 1, 2, 3, 4
#: ``gates.registry.ENV_VAR``, spelled here so ``watch`` can tell without importing it.
SCHEMAS_ENV = "HANDOFF_GATE_SCHEMAS"
_MAX_ROWS = 400


class UsageError(Exception):
    """A bad argument, missing file or unreadable input: exit 2 with this message."""


def _registry(spec: str | None) -> Registry:
    from handoff_gate.gates.contracts.registry import RegistryError, load_registry

    try:
        return load_registry(spec)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc


class _Builtins(Mapping[str, "type[BaseModel]"]):
    """The built-in contracts, imported on first use.

    ``watch`` without ``--schemas`` cannot fail to load its registry, so it need not
    build the contracts' models (about 20 ms) before its first paint: the inspection
    thread, the first to look a contract up, loads them after the screen is up.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: Registry | None = None

    def _loaded(self) -> Registry:
        with self._lock:
            if self._models is None:
                self._models = _registry("")
            return self._models

    def __getitem__(self, schema_id: str) -> type[BaseModel]:
        return self._loaded()[schema_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def _read_input(name: str) -> bytes:
    from handoff_gate.gates.store.durable import read_bounded
    from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

    if name == "-":
        data = sys.stdin.buffer.read(MAX_HANDOFF_BYTES + 1)
        if len(data) > MAX_HANDOFF_BYTES:
            raise UsageError(f"stdin is over the {MAX_HANDOFF_BYTES}-byte limit")
        return data
    try:
        return read_bounded(Path(name), MAX_HANDOFF_BYTES)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc}") from exc


def cmd_submit(args: argparse.Namespace) -> int:
    from handoff_gate.gates.run.submit import submit

    registry = _registry(args.schemas)
    payload = _read_input(args.payload)
    if args.schema not in registry:
        print(f"warning: unknown schema {args.schema!r}; it will be blocked", file=sys.stderr)
    try:
        ref = submit(
            Path(args.run_dir),
            payload,
            phase=args.phase,
            schema_id=args.schema,
            from_role=args.from_role,
            to_role=args.to_role,
            finish_reason=args.finish_reason,
            refusal=args.refusal,
            registry=registry,
            allow_unknown_schema=True,
        )
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot submit: {_one_line(exc)}") from exc
    print(ref.id)
    return OK


def _one_line(exc: BaseException) -> str:
    return visible(" ".join(str(exc).split()))


def _flat(text: str) -> str:
    """``visible`` text kept on one line, so each finding or field is one greppable line."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def _value_text(value: Any, child_count: int) -> str:
    from handoff_gate.gates.vocab.safe_text import preview

    text = preview(value, 80)
    if isinstance(value, dict | list) and child_count:
        return f"{text}  ({child_count} inside)"
    return text


def _print_rows(report: Report, parent: str, depth: int, budget: list[int]) -> None:
    from handoff_gate.gates.view.fields import field_rows
    from handoff_gate.gates.vocab.report import FieldState

    for row in field_rows(report, parent):
        if budget[0] <= 0:
            print("  …")
            return
        budget[0] -= 1
        states = ",".join(s.value for s in row.states)
        line = f"{'  ' * (depth + 1)}{_flat(row.key)}  [{states}]  "
        absent = FieldState.MISSING in row.states
        line += "(absent)" if absent else _value_text(row.value, row.child_count)
        if row.message:
            line += f"  — {_flat(row.message)}"
        print(line)
        if row.child_count:
            _print_rows(report, row.path, depth + 1, budget)


def print_report(name: str, report: Report) -> None:
    """A field-by-field, escape-free rendering of a report for a terminal or a log."""
    schema = _flat(report.schema_id or "?")
    print(f"{_flat(name)}: {report.verdict.value.upper()}  schema {schema}")
    print(f"  {report.size} bytes (~{report.approx_tokens} tokens)  sha256 {report.sha256}")
    if report.findings:
        print("findings:")
    for f in report.findings:
        where = _flat(f.path) or "(payload)"
        print(f"  {f.severity.value:5}  {f.code.value}  {where}  {_flat(f.message)}")
    budget = [_MAX_ROWS]
    print("fields:")
    _print_rows(report, "", 0, budget)
    if budget[0] == _MAX_ROWS:
        print("  (none: nothing parsed into an object)")


def _inspect_path(path: Path, schema: str | None, registry: Registry) -> Report:
    """A handoff inside a run is inspected in its run (so append-only checks see the
    previous handoff); any other file is inspected on its own."""
    from handoff_gate.gates.inspect.stages import inspect_file
    from handoff_gate.gates.run.report_in_run import inspect_in_run
    from handoff_gate.gates.store.filesystem import is_run
    from handoff_gate.gates.vocab.ids import ID_PATTERN
    from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    stem = path.name.removesuffix(".json")
    in_run = path.parent.name == "handoffs" and is_run(path.parent.parent)
    if schema is None and in_run and ID_PATTERN.match(stem) and path.suffix == ".json":
        return inspect_in_run(path.parent.parent, stem, registry)
    return inspect_file(path, registry, schema_id=schema, max_bytes=MAX_HANDOFF_BYTES)


def cmd_check(args: argparse.Namespace) -> int:
    registry = _registry(args.schemas)
    report = _inspect_path(Path(args.path), args.schema, registry)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=True, indent=2))
    else:
        print_report(args.path, report)
    return OK if report.approvable else FAIL


def cmd_decide(args: argparse.Namespace) -> int:
    from handoff_gate.gates.run.decisions import DecisionRefused, decide
    from handoff_gate.gates.store.filesystem import is_run

    registry = _registry(args.schemas)
    run_dir = Path(args.run_dir)
    if not is_run(run_dir):
        raise UsageError(f"not a run directory (no handoffs/ folder): {args.run_dir}")
    try:
        decision = decide(
            run_dir,
            args.handoff_id,
            args.action,
            reason=args.reason,
            category=args.category,
            reviewer=args.reviewer,
            registry=registry,
        )
    except DecisionRefused as exc:
        print(f"refused: {_one_line(exc)}", file=sys.stderr)
        return FAIL
    except (ValueError, OSError) as exc:
        raise UsageError(_one_line(exc)) from exc
    done = "approved" if decision.action.value == "approve" else "rejected"
    print(f"{decision.handoff} {done} by {visible(decision.reviewer)}")
    return OK


def cmd_wait(args: argparse.Namespace) -> int:
    from handoff_gate.gates.run.decision_record import DecisionCorrupt
    from handoff_gate.gates.run.waiting import WaitOutcome, wait
    from handoff_gate.gates.store.durable import atomic_write

    registry = _registry(args.schemas)
    if args.timeout is not None and args.timeout < 0:
        raise UsageError("--timeout must be zero or more seconds")
    try:
        result = wait(
            Path(args.run_dir),
            args.handoff_id,
            registry=registry,
            timeout=args.timeout,
            poll=args.poll,
        )
    except (DecisionCorrupt, ValueError, OSError) as exc:
        raise UsageError(_one_line(exc)) from exc
    who = visible(result.decision.reviewer) if result.decision else ""
    if result.outcome is WaitOutcome.APPROVED:
        text = json.dumps(result.payload, ensure_ascii=True, indent=2) + "\n"
        if args.out:
            try:
                atomic_write(Path(args.out), text.encode())
            except OSError as exc:
                raise UsageError(f"cannot write {args.out}: {exc}") from exc
        else:
            sys.stdout.write(text)
        return OK
    if result.outcome is WaitOutcome.REJECTED:
        reason = result.decision.reason if result.decision else None
        print(f"rejected by {who}: {visible(reason or '')}", file=sys.stderr)
        return FAIL
    if result.outcome is WaitOutcome.CHANGED:
        print(_changed_message(args.handoff_id, who, result), file=sys.stderr)
        return CHANGED
    print(f"timed out waiting for a decision on {args.handoff_id}", file=sys.stderr)
    return TIMED_OUT


def _changed_message(handoff_id: str, who: str, result: WaitResult) -> str:
    """Say whether the bytes changed or only the verdict did (e.g. contracts not loaded)."""
    report, decision = result.report, result.decision
    if report is not None and decision is not None and report.sha256 == decision.sha256:
        codes = ", ".join(sorted({f.code.value for f in report.blocking})) or "no payload"
        return (
            f"{handoff_id} was approved by {who} but no longer passes inspection ({codes}); "
            "load the same --schemas as the reviewer. Nothing delivered."
        )
    return f"{handoff_id} changed after it was approved by {who}; nothing delivered"


def cmd_schemas(args: argparse.Namespace) -> int:
    from handoff_gate.gates.contracts.registry import RegistryError, strict_json_schema

    registry = _registry(args.schemas)
    if args.json_schema is not None:
        if args.json_schema not in registry:
            raise UsageError(f"unknown schema {args.json_schema!r}; see: handoff-gate schemas")
        try:
            schema = strict_json_schema(registry[args.json_schema])
        except RegistryError as exc:
            raise UsageError(str(exc)) from exc
        print(json.dumps(schema, ensure_ascii=True, indent=2))
        return OK
    for schema_id in sorted(registry):
        doc = (registry[schema_id].__doc__ or "").strip().splitlines()
        print(f"{visible(schema_id):24} {visible(doc[0]) if doc else ''}")
    return OK


def cmd_watch(args: argparse.Namespace) -> int:
    spec = os.environ.get(SCHEMAS_ENV, "") if args.schemas is None else args.schemas
    registry = _registry(spec) if spec.strip() else _Builtins()
    app = importlib.import_module("handoff_gate.tui.app")
    return int(
        app.run_app(
            Path(args.root),
            registry,
            reviewer=args.reviewer,
            show=args.show,
            poll=args.poll,
            quiet=args.quiet,
        )
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from handoff_gate.demo import run_demo

    workspace = Path(args.workspace) if args.workspace else None
    return run_demo(workspace, open_tui=not args.no_tui)


def build_parser() -> argparse.ArgumentParser:
    from handoff_gate.gates.vocab.actions import Action, Category

    parser = argparse.ArgumentParser(
        prog="handoff-gate",
        description="A fail-closed human-approval gate for JSON handoffs between LLM phases.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name != "demo":
            p.add_argument(
                "--schemas", metavar="SPEC", help="extra contracts: a .py file or module"
            )
        return p

    p = command("submit", "store a payload as the run's next handoff; prints its id")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("--phase", required=True)
    p.add_argument("--schema", required=True, metavar="ID")
    p.add_argument("--from", dest="from_role", metavar="ROLE")
    p.add_argument("--to", dest="to_role", metavar="ROLE")
    p.add_argument("--finish-reason", metavar="REASON", help="the provider's stop reason")
    p.add_argument("--refusal", metavar="TEXT", help="the provider's refusal text, if any")
    p.add_argument("payload", metavar="PAYLOAD_FILE|-")
    p.set_defaults(func=cmd_submit)

    p = command("check", "inspect a handoff file, or a bare payload with --schema")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--schema", metavar="ID", help="treat PATH as a bare payload of this contract")
    p.add_argument("--json", action="store_true", help="print the stable JSON report")
    p.set_defaults(func=cmd_check)

    p = command("decide", "approve or reject a handoff")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("handoff_id", metavar="HANDOFF_ID")
    p.add_argument("action", choices=[a.value for a in Action])
    p.add_argument("--reason", metavar="TEXT", help="required to reject")
    p.add_argument("--category", choices=[c.value for c in Category])
    p.add_argument("--reviewer", metavar="NAME", help="default: OS user@host")
    p.set_defaults(func=cmd_decide)

    p = command("wait", "block until a handoff is decided; prints the approved payload")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("handoff_id", metavar="HANDOFF_ID")
    p.add_argument("--timeout", type=float, metavar="SECONDS")
    p.add_argument("--out", metavar="FILE", help="write the approved payload here")
    p.add_argument("--poll", action="store_true", help="poll (network filesystems)")
    p.set_defaults(func=cmd_wait)

    p = command("schemas", "list known contracts, or print one as strict JSON Schema")
    p.add_argument("--json-schema", metavar="ID")
    p.set_defaults(func=cmd_schemas)

    p = command("watch", "review handoffs under ROOT in the terminal UI")
    p.add_argument("root", metavar="ROOT")
    p.add_argument("--reviewer", metavar="NAME")
    p.add_argument("--show", choices=["pending", "rejected", "approved", "all"], default="pending")
    p.add_argument("--poll", action="store_true", help="poll (network filesystems)")
    p.add_argument("--quiet", action="store_true", help="no terminal bell on new handoffs")
    p.set_defaults(func=cmd_watch)

    p = command("demo", "create a sample run and open it in the terminal UI")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--no-tui", action="store_true")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (argparse errors become 2, never a traceback)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else USAGE
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"handoff-gate {args.command}: {_flat(str(exc))}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, and keep the interpreter's
        # final flush from raising the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAIL
