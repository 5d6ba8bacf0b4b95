"""The composition root of ``handoff-gate``: the argument parser, one Gate, a dispatch table.

Every command is ``run(gate, args) -> int``. ``main`` parses, makes the one ``Gate`` the
arguments describe (``gate_for``) and imports only the module of the command being run,
so every command starts as fast as what it uses allows (the deferred loads are listed in
docs/architecture.md). It is also the one place that sets process-wide settings:
pydantic's plugins, the app's frame rate and, in a process that is the command
(``console_main``), the garbage collector.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from handoff_gate.cli.errors import FAIL, INTERRUPTED, USAGE, ArgumentError, UsageError, flat
from handoff_gate.cli.frame_rate import prefer_tui_frame_rate
from handoff_gate.cli.notify_urls import add_notify_url
from handoff_gate.gates.store.base import StoreError
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.deadline import parse_duration
from handoff_gate.gates.vocab.environment import (
    KEY_ENV,
    POLICY_ENV,
    STORE_ENV,
    ConfigError,
    Environment,
)
from handoff_gate.gates.vocab.extras import MissingExtra, needs_extra
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.integrations.harness_names import HARNESS_NAMES as HOOK_AGENTS

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Gate, SigningKey

VERSION_MODULE = "handoff_gate.cli.commands.version"
LIST_STATES = [s.value for s in HandoffState]
#: pydantic hands the input of every validation to each plugin an installed package
#: registers, so a plugin would see a payload's bytes, secrets and all, before the gate
#: has flagged or masked anything. The CLI runs without them unless the variable is set
#: (``PYDANTIC_DISABLE_PLUGINS=`` lets them all load; docs/security.md).
PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"
#: An unexpected error's line is cut here: its text may quote a planted file.
_MAX_ERROR = 500


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless it has none worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        shown = default not in (None, False, argparse.SUPPRESS) and action.option_strings
        if shown and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """Argument errors are one line naming the command's ``--help`` (docs/protocol.md).

    argparse prints the whole usage block first, which buries the one line that says
    what is wrong; and the message may echo argv, so it is made escape-free. Sub-parsers
    are built from the parser's own class, so every command gets this.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, argument_error(self.prog, message))


def argument_error(prog: str, message: str) -> str:
    """The one line an argument error prints: what is wrong, and where the help is."""
    return f"{prog}: error: {flat(message)} (see '{prog} --help')\n"


class _Version(argparse.Action):
    """``--version``: imports the version lookup only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        print(importlib.import_module(VERSION_MODULE).text())
        parser.exit()


def seconds(text: str) -> float:
    """A finite, non-negative number of seconds (``inf``, ``nan`` and ``-1`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {text!r}")
    return value


def duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``2h`` or ``7d``; anything else is an argument error (exit 2)."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def since_moment(text: str) -> datetime:
    """``--since``: the aware UTC moment ``2026-03-02`` (its midnight) or
    ``2026-03-02T09:30Z`` names (UTC unless it names a zone); anything else is an
    argument error, never a silent "since the beginning"."""
    try:
        found = datetime.fromisoformat(text.strip())
    except ValueError:
        shown = text[:80]
        raise argparse.ArgumentTypeError(
            f"not an ISO date or datetime: {shown!r} (e.g. 2026-03-02 or 2026-03-02T09:30Z)"
        ) from None
    return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)


def sha256_hex(text: str) -> str:
    """64 hex digits, lowercased. A digest given as anything else is a mistake to say at
    once: an empty ``--policy-sha256 ""`` must never read as "no pin"."""
    if len(text) != 64 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise argparse.ArgumentTypeError(f"must be 64 hex digits (a sha256), not {text[:80]!r}")
    return text.lower()


def idempotency_key(text: str) -> str:
    """``--idempotency-key``: printable text on one line, 1 to 200 characters, so a key
    that is empty (a shell variable left unset) never reads as "no key"."""
    if not text.strip() or len(text) > 200 or not text.isprintable():
        raise argparse.ArgumentTypeError("must be 1 to 200 printable characters on one line")
    return text


def _read_by_gate(name: str) -> Callable[[str], Any]:
    """An argparse ``type`` reading the file through ``Gate.NAME`` (``read_policy``,
    ``read_key``): the trust code loads only when the option or its default is set."""

    def load(text: str) -> Any:
        from handoff_gate.gates.gate import Gate

        try:
            return getattr(Gate, name)(text)
        except ConfigError as exc:  # argparse would word a ValueError its own way
            raise UsageError(str(exc)) from exc

    load.__name__ = name
    return load


def _add_key(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--key",
        type=_read_by_gate("read_key"),
        metavar="PATH",
        help=f"OpenSSH ed25519 private key that signs {what} (default: ${KEY_ENV})",
    )


def _add_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--policy",
        type=_read_by_gate("read_policy"),
        metavar="PATH",
        help=f"TOML policy: who may decide which phase, with how many approvals "
        f"(default: ${POLICY_ENV})",
    )


#: The options whose default is an environment variable's (``Environment``'s field).
_FROM_ENVIRONMENT = ("policy", "key")


def _environment_defaults(p: argparse.ArgumentParser, env: Environment) -> None:
    """``--policy`` and ``--key`` default to the environment's, wherever a command (or a
    sub-command, ``hook codex``) takes them; argparse loads a default as it loads the
    option, so a bad file in a variable is the same one-line error as on the line."""
    for action in p._actions:
        if action.dest in _FROM_ENVIRONMENT and action.option_strings:
            action.default = getattr(env, action.dest)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _environment_defaults(sub, env)


def _add_handoff(p: argparse.ArgumentParser) -> None:
    """The ``RUN_DIR HANDOFF_ID`` pair naming one handoff, spelled alike in every command."""
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run holding the handoff")
    p.add_argument("handoff_id", metavar="HANDOFF_ID", help="e.g. 0001-plan")


def _add_root(p: argparse.ArgumentParser, metavar: str = "ROOT") -> None:
    """The ROOT of the commands that look at every run: a run, a folder, or the store."""
    p.add_argument(
        "root", metavar=metavar, nargs="?", help="a run, or a folder of runs (none with --store)"
    )


def _add_submit(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run; created if only it is missing")
    p.add_argument(
        "--phase",
        help="phase name, e.g. plan (the id's suffix); required, except with --tool "
        "(default tool-call)",
    )
    p.add_argument(
        "--schema", metavar="ID", help="contract id, e.g. plan/v1; required, except with --tool"
    )
    p.add_argument(
        "--tool",
        metavar="NAME",
        help="submit a tool call: PAYLOAD is the arguments of tool NAME, its contract the "
        "--json-schema given (default: a free-form object, every key delivered as sent)",
    )
    p.add_argument("--call-id", metavar="ID", help="with --tool: the call's id (required)")
    p.add_argument("--thread", metavar="T", help="with --tool: the conversation it belongs to")
    p.add_argument("--agent", metavar="A", help="with --tool: the agent asking to run it")
    p.add_argument("--description", metavar="TEXT", help="with --tool: what the tool does")
    p.add_argument("--from", dest="from_role", metavar="ROLE", help="the producing role")
    p.add_argument("--to", dest="to_role", metavar="ROLE", help="the receiving role")
    p.add_argument("--finish-reason", metavar="REASON", help="the provider's stop reason")
    p.add_argument("--refusal", metavar="TEXT", help="the provider's refusal text, if any")
    p.add_argument(
        "--allow-unknown-schema",
        action="store_true",
        help="store a handoff of a contract nobody knows (it stays blocked)",
    )
    p.add_argument(
        "--idempotency-key",
        type=idempotency_key,
        metavar="KEY",
        help="a re-run with the same KEY and bytes prints the handoff stored the first time "
        "instead of storing another; the same KEY with other bytes exits 2",
    )
    p.add_argument(
        "--json-schema",
        metavar="FILE",
        help="the contract as a JSON Schema file: stored in the run as --schema ID (or found "
        "there) and named by its digest, so reviewers need no contract module; another "
        "document under that id, or a schema the gate refuses, exits 2",
    )
    p.add_argument(
        "--expires-in",
        type=duration,
        metavar="DURATION",
        help="a deadline (90s, 30m, 2h, 7d) written into the handoff: after it the handoff "
        "is expired, decide refuses it and wait exits 5 (default: the policy rule's "
        "expires_in, else none)",
    )
    _add_key(p, "the handoff as its producer")
    _add_policy(p)
    p.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object {"run", "id", "sha256", "payload_sha256"} instead of '
        "the id: sha256 is the stored handoff file's, which a decision binds to (give it to "
        "`wait --sha256` so only these bytes are delivered); payload_sha256 is the payload "
        "bytes', as `check PAYLOAD --schema ID` prints it",
    )
    p.add_argument("payload", metavar="PAYLOAD_FILE|-", help="the payload bytes; - for stdin")


def _add_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="a stored handoff, or a bare payload")
    p.add_argument("--schema", metavar="ID", help="treat PATH as a bare payload of this contract")
    p.add_argument(
        "--json-schema",
        metavar="FILE",
        help="treat PATH as a bare payload of the contract this JSON Schema file describes "
        "(no run, no --schemas module needed); a schema the gate refuses exits 2 saying why",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the stable JSON report: its sha256 is of the bytes inspected, "
        'sha256_of says which ("handoff_file", which a decision binds to, or "payload"), '
        "payload_sha256 is the payload bytes' (for a handoff file, the producer's inside it)",
    )
    _add_policy(p)


def _add_decide(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run holding the handoff")
    p.add_argument(
        "handoff_id",
        metavar="HANDOFF_ID",
        help="e.g. 0001-plan; with --pending or --ids, this is the action instead",
    )
    p.add_argument("action", nargs="?", choices=[a.value for a in Action], help="approve or reject")
    batch = p.add_mutually_exclusive_group()
    batch.add_argument(
        "--pending",
        action="store_true",
        help="decide every handoff of the run the action may be taken on now (approve: "
        "pending ones; reject: pending and blocked), one line per id; exit 1 if any refused",
    )
    batch.add_argument(
        "--ids",
        metavar="-",
        choices=["-"],
        help="read 'ID SHA256' lines from stdin and decide each, bound to its sha256 "
        "(a malformed line: exit 2, nothing written)",
    )
    p.add_argument("--phase", metavar="P", help="with --pending: only handoffs of this phase")
    p.add_argument("--schema", metavar="ID", help="with --pending: only handoffs of this contract")
    p.add_argument("--reason", metavar="TEXT", help="why; required to reject")
    p.add_argument(
        "--category", choices=[c.value for c in Category], help="the kind of problem, to reject"
    )
    p.add_argument("--reviewer", metavar="NAME", help="who decides (default: OS user@host)")
    p.add_argument(
        "--sha256",
        type=sha256_hex,
        metavar="HEX",
        help="refuse (exit 1, nothing written) unless the handoff file's bytes have this "
        "sha256, as `show RUN ID` or `check RUN/handoffs/ID.json` prints it: the decision "
        "binds to what was reviewed",
    )
    p.add_argument(
        "--edit",
        metavar="FILE",
        help="approve FILE (the edited payload JSON) instead of the producer's payload: "
        "inspected against the same contract (exit 1 with its findings if not approvable); "
        "the decision names both sha256s",
    )
    _add_key(p, "the decision")
    _add_policy(p)


def _add_withdraw(p: argparse.ArgumentParser) -> None:
    _add_handoff(p)
    p.add_argument("--reason", metavar="TEXT", help="why the pipeline no longer wants it")
    _add_policy(p)


def _add_wait(p: argparse.ArgumentParser) -> None:
    _add_handoff(p)
    p.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="give up (exit 3) after this long (default: wait forever; a handoff's own "
        "deadline ends the wait with exit 5, a withdrawal with exit 6)",
    )
    p.add_argument("--out", metavar="FILE", help="write the approved payload here; - for stdout")
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout however the wait ends: outcome, payload, "
        "decision, report, dropped_keys, defaulted (exit codes as without it)",
    )
    p.add_argument("--poll", action="store_true", help="poll (network filesystems)")
    p.add_argument(
        "--redeliver",
        action="store_true",
        help="deliver a tool call's approval that a wait delivered already (crash "
        "recovery: that delivery never ran); without it such a wait exits 7",
    )
    p.add_argument(
        "--notify",
        metavar="CMD",
        help="shell command run once when the wait starts blocking; it gets "
        "HANDOFF_GATE_RUN, _ID, _PHASE, _VERDICT in its environment",
    )
    _add_policy(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="under --policy, exit 2 instead of warning when this account could remove "
        "a reviewer's veto (a run folder not made by `handoff-gate init`)",
    )
    p.add_argument(
        "--policy-sha256",
        type=sha256_hex,
        metavar="HEX",
        help="exit 2 unless the policy and its allowed_signers have this digest "
        "(handoff-gate policy PATH prints it)",
    )
    p.add_argument(
        "--sha256",
        type=sha256_hex,
        metavar="HEX",
        help="deliver only if the handoff file's bytes have this sha256, as `submit --json` "
        "prints it; otherwise exit 4 with nothing delivered",
    )


def _add_init(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN", help="the new run directory")
    p.add_argument(
        "--pipeline",
        required=True,
        metavar="USER",
        help="the pipeline's account (name or uid): it submits and waits, never decides",
    )
    p.add_argument(
        "--reviewers",
        required=True,
        metavar="GROUP",
        help="the reviewers' group (name or gid): they alone add decisions",
    )


def _add_schemas(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json-schema", metavar="ID", help="print this contract as JSON Schema")
    p.add_argument(
        "--run",
        metavar="RUN",
        help="also the contracts this run stores (contracts add); with --json-schema, a "
        "stored one is printed as stored",
    )


def _add_contracts(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(
        dest="contracts_action", required=True, metavar="ACTION", help="what to do"
    )
    for name, text in (
        ("add", "store a JSON Schema contract in the run once; prints 'sha256 DIGEST'"),
        ("list", "every contract the run's handoffs are reviewed against"),
        ("show", "print a contract the run stores"),
    ):
        action = actions.add_parser(name, help=text, description=text, formatter_class=_Formatter)
        action.add_argument("run_dir", metavar="RUN", help="the run")
        if name != "list":
            action.add_argument("schema_id", metavar="SCHEMA_ID", help="e.g. plan/v1")
        if name == "add":
            action.add_argument("file", metavar="FILE.json", help="the JSON Schema; - for stdin")
        if name == "list":
            action.add_argument("--json", action="store_true", help="print one JSON array")
            _add_schemas_option(action)


def _add_list(p: argparse.ArgumentParser) -> None:
    _add_root(p)
    p.add_argument("--state", choices=LIST_STATES, help="only handoffs in this state")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.add_argument(
        "--no-header",
        action="store_true",
        help="leave out the first line naming the columns (for scripts)",
    )
    _add_policy(p)


def _add_stats(p: argparse.ArgumentParser) -> None:
    _add_root(p)
    p.add_argument(
        "--since",
        type=since_moment,
        metavar="DATE",
        help="only handoffs submitted at or after this ISO date or datetime (UTC unless it "
        "names a zone)",
    )
    p.add_argument("--top", type=int, default=10, metavar="N", help="how many reasons to rank")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_policy(p)


def _add_replay(p: argparse.ArgumentParser) -> None:
    _add_root(p)
    p.add_argument("--json", action="store_true", help="print one JSON array")
    _add_policy(p)


def _add_show(p: argparse.ArgumentParser) -> None:
    _add_handoff(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--brief",
        action="store_true",
        help="one line per field, long values cut (…(+N chars)) as check prints them; "
        "without it every value is printed in full, wrapped to the terminal (100 "
        "columns when not a terminal)",
    )
    _add_policy(p)


def _add_audit(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN", help="the run whose log to print or verify")
    p.add_argument(
        "--verify",
        action="store_true",
        help="exit 0 when the log and the run's records agree, 1 listing every problem",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per event")
    _add_policy(p)


def _add_policy_command(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="the policy file to check")


def _add_store(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(
        dest="store_action", required=True, metavar="ACTION", help="what to do with the store"
    )
    text = "create or migrate the schema (idempotent, versioned; safe from two hosts at once)"
    init = actions.add_parser("init", help=text, description=text, formatter_class=_Formatter)
    init.add_argument(
        "--roles",
        action="store_true",
        help="also create the LOGIN roles handoff_gate_pipeline and handoff_gate_reviewer "
        "(no passwords) and grant each only what it may do",
    )


def _add_watch(p: argparse.ArgumentParser) -> None:
    _add_root(p)
    p.add_argument("--reviewer", metavar="NAME", help="who decides (default: OS user@host)")
    p.add_argument(
        "--show",
        choices=["open", "rejected", "approved", "all", "pending"],
        default="open",
        help="which handoffs the list starts with (pending: the former name of open)",
    )
    p.add_argument("--poll", action="store_true", help="poll (network filesystems)")
    p.add_argument("--quiet", action="store_true", help="no terminal bell on new handoffs")
    p.add_argument(
        "--read-only", action="store_true", help="review only: no decisions, nothing written"
    )
    _add_key(p, "decisions")
    _add_policy(p)
    add_notify_url(p)


def _add_serve(p: argparse.ArgumentParser) -> None:
    _add_root(p, "RUNS")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    p.add_argument("--port", type=_port, default=8150, help="the port (0: any free one)")
    p.add_argument(
        "--reviewer", metavar="NAME", help="who every browser decides as (default: OS user@host)"
    )
    p.add_argument(
        "--show",
        choices=["open", "rejected", "approved", "all", "pending"],
        default="open",
        help="which handoffs the list starts with",
    )
    p.add_argument(
        "--read-only", action="store_true", help="review only: no decisions, nothing written"
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers reach the server by (a proxy's); the printed link uses it",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (put TLS and a login in front)",
    )
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help="read the access token from FILE (owner-only, at least 32 characters) "
        "instead of making a random one",
    )
    add_notify_url(p)
    p.add_argument(
        "--max-sessions",
        type=_positive,
        default=4,
        metavar="N",
        help="browser tabs served at once, each its own app process; more are refused",
    )
    p.add_argument(
        "--idle-timeout",
        type=_some_seconds,
        default=900.0,
        metavar="SECONDS",
        help="end a tab's app after this long without input",
    )
    _add_key(p, "decisions")
    _add_policy(p)


def _port(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"not a port: {text}")
    return number


def _some_seconds(text: str) -> float:
    value = seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text}")
    return number


def _add_hook(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN", help="the run its tool calls are submitted to")
    p.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="the hook's one deadline, from its start: reading the event, the store's "
        "locks and the wait all come out of it; past it the handoff is withdrawn and the "
        "call denied (default: 540; gemini 50, below each agent's own hook timeout)",
    )
    p.add_argument(
        "--on-timeout",
        choices=["deny", "ask"],
        default="deny",
        help="what nobody deciding in time answers: deny, or ask (claude-code only: "
        "Claude Code's own prompt takes over, which does not block in its auto mode)",
    )
    _add_policy(p)
    _add_key(p, "handoffs the hook submits")
    _add_schemas_option(p)


#: ``hook install`` and ``hook doctor`` run from their own module (``SUB_COMMANDS``).
HOOK_SETUP = "hook-setup"


def _add_hook_setup(p: argparse.ArgumentParser, install: bool) -> None:
    p.set_defaults(run_as=HOOK_SETUP)
    p.add_argument("agent", choices=HOOK_AGENTS, metavar="AGENT", help=", ".join(HOOK_AGENTS))
    if install:
        p.add_argument(
            "run_dir", metavar="RUN", help="the run its tool calls go to (made absolute)"
        )
    p.add_argument(
        "--settings",
        metavar="FILE",
        help="the agent's settings file (default: the project's own, from the current "
        "directory: .claude/settings.json, .codex/config.toml, .gemini/settings.json)",
    )
    if install:
        p.add_argument(
            "--timeout",
            type=seconds,
            metavar="SECONDS",
            help="the gate's deadline; the agent's hook timeout is set above it "
            "(default: 540; gemini 50)",
        )


def _add_hook_command(p: argparse.ArgumentParser) -> None:
    """``hook AGENT RUN`` as before, beside ``hook install`` and ``hook doctor``."""
    p.usage = (
        f"%(prog)s {{{','.join(HOOK_AGENTS)}}} RUN [options]\n"
        "       %(prog)s install AGENT RUN [--settings FILE] [--timeout SECONDS]\n"
        "       %(prog)s doctor AGENT [--settings FILE]"
    )
    actions = p.add_subparsers(
        dest="hook_action",
        required=True,
        metavar="AGENT|ACTION",
        help="run as that agent's hook, or install or check one in its settings",
    )
    hook = "'s hook: its event on stdin, the call reviewed, its answer on stdout"
    texts = {agent: agent + hook for agent in HOOK_AGENTS} | {
        "install": "write or merge the gate's fail-closed hook into the agent's settings",
        "doctor": "exit 0 when the agent's configured hook will run and block, else 1 "
        "with one line per problem",
    }
    for name, text in texts.items():
        sub = actions.add_parser(
            name, prog=f"handoff-gate hook {name}", help=text, description=text,
            formatter_class=_Formatter,
        )  # fmt: skip
        if name in HOOK_AGENTS:
            sub.set_defaults(harness=name)
            _add_hook(sub)
        else:
            _add_hook_setup(sub, install=name == "install")


def _add_mcp_proxy(p: argparse.ArgumentParser) -> None:
    p.usage = "%(prog)s RUN [--gate GLOB ...] [--timeout SECONDS] [options] [--] COMMAND [ARGS...]"
    p.add_argument("run_dir", metavar="RUN", help="the run each gated tool call is submitted to")
    p.description = (
        "serve MCP on stdio in front of an MCP server, its tool calls reviewed first. "
        "COMMAND [ARGS...] is the server's command line, word for word from the first word "
        "after RUN that is not one of the options below (which go before it); a -- before "
        "it is optional, as the MCP Inspector drops it"
    )
    p.add_argument(
        "--gate",
        action="append",
        metavar="GLOB",
        help="review calls of the tools whose name matches (fnmatch, case-sensitive; "
        "repeatable); the others pass straight through (default: every tool)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="answer a call isError and withdraw its handoff when nobody decided within "
        "this long (default: until the host cancels the call or closes)",
    )
    _add_key(p, "each tool-call handoff (with --policy naming its producer)")
    _add_policy(p)


def _add_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", metavar="DIR", help="use this empty folder (default: a temp one)")
    p.add_argument("--no-tui", action="store_true", help="run headless; print what to type")
    p.add_argument("--keep", action="store_true", help="keep the scratch workspace on exit")


_ARGUMENTS = {
    "submit": ("store a payload as the run's next handoff; prints its id", _add_submit),
    "check": ("inspect a handoff file, or a bare payload with --schema", _add_check),
    "decide": ("approve or reject a handoff", _add_decide),
    "wait": ("block until a handoff is decided; prints the approved payload", _add_wait),
    "init": (
        "make a run whose decisions the pipeline's account cannot touch (run as root)",
        _add_init,
    ),
    "withdraw": ("take back an undecided handoff the pipeline will not consume", _add_withdraw),
    "schemas": ("list known contracts, or print one as strict JSON Schema", _add_schemas),
    "list": ("one line per handoff under ROOT: state, verdict, decision, waiter", _add_list),
    "show": ("one handoff's report, decision and waiter", _add_show),
    "stats": ("the look back: decisions by outcome, decider, phase, tool; times", _add_stats),
    "replay": (
        "what --policy's [[auto]] rules would have done to every recorded handoff, where "
        "the outcome would differ, most dangerous first (writes nothing)",
        _add_replay,
    ),
    "audit": ("print a run's audit log, or verify it against the run's records", _add_audit),
    "watch": ("review handoffs under ROOT in the terminal UI", _add_watch),
    "serve": ("serve the watch review app to a browser, behind a token", _add_serve),
    "demo": ("create a sample run and open it in the terminal UI", _add_demo),
    "policy": (
        "check a policy file; print its rules and the digest that pins it",
        _add_policy_command,
    ),
    "hook": (
        "a coding agent's tool-call hook: submit the call, wait, answer; or install or "
        "check one in the agent's settings",
        _add_hook_command,
    ),
    "store": ("manage the PostgreSQL store (--store URL or HANDOFF_GATE_STORE)", _add_store),
    "contracts": ("add, list or show the JSON Schema contracts a run stores", _add_contracts),
    "mcp-proxy": (
        "serve MCP on stdio in front of an MCP server, its tool calls reviewed first",
        _add_mcp_proxy,
    ),
}


#: command name -> the module holding its ``run(args) -> int``.
COMMANDS = {name: f"handoff_gate.cli.commands.{name.replace('-', '_')}" for name in _ARGUMENTS}
#: A sub-command with a module of its own, named as its ``args.run_as``.
SUB_COMMANDS = {HOOK_SETUP: "handoff_gate.cli.commands.hook_setup"}
#: The commands that run another program: what follows their first ``--`` is its command
#: line, word for word (``args.server``), never options of their own.
WRAPPING_COMMANDS = frozenset({"mcp-proxy"})
#: The commands whose module imports the terminal UI.
APP_COMMANDS = frozenset({"watch", "demo"})
#: The review apps: nobody is at a terminal their key could prompt on (``serve``'s tabs
#: have none at all), so a key that would ask for a passphrase is refused before they start.
REVIEW_APPS = frozenset({"watch", "serve"})
#: The commands whose module imports an extra's packages (``gates.vocab.extras``); ``store``
#: asks for its own (``Gate.init_store``).
COMMAND_EXTRAS = {"serve": "serve"}


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, if it is a known one: the first word that is not a
    global option (``--store URL`` takes a value). Help asked before it means all."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            return None
        if word == "--store":
            next(words, None)
        elif not word.startswith("-"):
            return word if word in _ARGUMENTS else None
    return None


def split_wrapped(words: list[str]) -> tuple[list[str], list[str]]:
    """The command's own words, and the wrapped program's: from the first word after
    RUN that is neither an option of the command nor an option's value, or after a
    ``--`` met before it; the program's words are its own from there on, a later ``--``
    or ``-y`` included, never options of ours. The ``--`` is optional because the MCP
    Inspector drops a literal one from a server's arguments."""
    takes_value = _value_options()
    seen_command = seen_run = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return words[:i], words[i + 1 :]
        if word.startswith("-") and word != "-":
            if word in takes_value or (not seen_command and word == "--store"):
                i += 1  # its value is the next word
        elif not seen_command:
            seen_command = True
        elif not seen_run:
            seen_run = True
        else:
            return words[:i], words[i:]
        i += 1
    return words, []


def _value_options() -> frozenset[str]:
    """The options of ``mcp-proxy`` that take a value (``--gate GLOB``), from its parser."""
    p = argparse.ArgumentParser(add_help=False)
    _add_mcp_proxy(p)
    names = {o for a in p._actions if a.nargs != 0 for o in a.option_strings}
    return frozenset(names | {"--schemas"})


def build_parser(
    only: str | None = None, env: Environment | None = None
) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` one command's: building every command's costs a
    few milliseconds that every pipeline step would pay, and one command's arguments are
    all its parsing and ``--help`` need. Top-level help and unknown commands get all.
    ``env``: the environment's defaults (``None``: this process's)."""
    env = Environment.read() if env is None else env
    parser = _Parser(
        prog="handoff-gate",
        description="A fail-closed human-approval gate for JSON handoffs between LLM phases.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    parser.add_argument(
        "--store",
        metavar="URL",
        default=None,
        help=f"a postgresql:// URL: keep runs in that database instead of run directories; "
        f"RUN is then a run id (default: ${STORE_ENV}, else the filesystem)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, add) in _ARGUMENTS.items():
        if only is not None and name != only:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=_Formatter)
        add(p)
        if name not in ("demo", "store", "policy", "init", "contracts", "hook"):
            _add_schemas_option(p)
        _environment_defaults(p, env)
    return parser


def _add_schemas_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--schemas",
        metavar="SPEC",
        help="extra contracts: a .py file or module (default: $HANDOFF_GATE_SCHEMAS)",
    )


def console_main() -> int:
    """The ``handoff-gate`` console script and ``python -m``: ``main``, with the command's
    module loaded under a paused, then frozen, collector.

    Loading a command makes tens of thousands of objects that live until the process
    ends; the collector scanning them as they are made and again at exit was about 15%
    of a ``check``'s, ``decide``'s or ``wait``'s start-up (docs/performance.md, issue 18).
    Not in ``main``: a caller running ``main`` many times would have all it holds frozen
    for good. A module that fails to load is left to ``main`` to report.
    """
    words = sys.argv[1:]
    command = command_named(words)
    if command is not None:
        _without_plugins()
        collecting = gc.isenabled()
        gc.disable()
        try:
            load_command(command)
        except Exception:  # noqa: S110 - main imports it again and reports the error
            pass
        finally:
            gc.freeze()
            if collecting:
                gc.enable()
    return main(words)


def _without_plugins() -> None:
    """Turn pydantic's plugins off unless the user chose (``PLUGINS_ENV``); before any
    option or command module builds a model."""
    os.environ.setdefault(PLUGINS_ENV, "__all__")


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (argparse errors become 2, never a traceback).

    Callable again and again in one process (the tests run the CLI this way): it leaves
    the collector and the signal handlers as it found them, and changes of the streams
    only how they write what they cannot encode.
    """
    _without_plugins()
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    words = sys.argv[1:] if argv is None else list(argv)
    env = Environment.read()
    command = command_named(words)
    words, server = split_wrapped(words) if command in WRAPPING_COMMANDS else (words, None)
    parser = build_parser(command, env)
    try:
        args, extra = parser.parse_known_args(words)
        if server is not None:
            args.server = server
        if extra:  # named after the command they were given to, not the top level
            prog = f"handoff-gate {args.command}"
            parser.exit(USAGE, argument_error(prog, f"unrecognized arguments: {' '.join(extra)}"))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else USAGE
    except (UsageError, ConfigError) as exc:  # a --policy or --key file that cannot be used
        print(f"handoff-gate {command}: {flat(str(exc))}", file=sys.stderr)
        return USAGE
    try:
        module = load_command(getattr(args, "run_as", args.command))
        with gate_for(args, env) as gate:
            return int(module.run(gate, args))
    except ArgumentError as exc:
        prog = f"handoff-gate {args.command}"
        print(argument_error(prog, str(exc)), end="", file=sys.stderr)
        return USAGE
    except (UsageError, ConfigError, StoreError, MissingExtra) as exc:
        print(f"handoff-gate {args.command}: {flat(str(exc))}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        # A command that has its own word for it (wait: "cancelled …") says it and
        # returns; one stopped mid-way says so in one line, never in a traceback.
        print(f"handoff-gate {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, and keep the interpreter's
        # final flush from raising the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAIL
    except Exception as exc:  # fail closed: one sanitised line, never a traceback
        return internal_error(args.command, exc, env)


def gate_for(args: argparse.Namespace, env: Environment) -> Gate:
    """The one Gate a command runs with: ``--store``, ``--schemas``, ``--policy`` (a
    command without it takes the environment's: no command loads contracts outside the
    policy's pins), ``--policy-sha256``, ``--key`` and ROOT, the environment's for what
    is not given. Nothing is opened or loaded until the command asks."""
    from handoff_gate.gates.gate import Config, Gate

    store: str | None = args.store
    schemas: str | None = getattr(args, "schemas", None)
    key: SigningKey | None = getattr(args, "key", None)
    if key is not None and args.command in REVIEW_APPS:
        key = _unattended(key, args)
    config = Config(
        store=env.store if store is None else store,
        schemas=env.schemas if schemas is None else schemas,
        policy=args.policy if hasattr(args, "policy") else env.policy,
        key=key,
        policy_sha256=getattr(args, "policy_sha256", None),
        root=getattr(args, "root", None),
        listing=args.command if hasattr(args, "root") else None,
    )
    return Gate.configured(config)


def _unattended(key: SigningKey, args: argparse.Namespace) -> SigningKey:
    """A review app's key (``REVIEW_APPS``): it never prompts for a passphrase, so one
    that would have to is refused before the first screen, naming ``ssh-add``."""
    from handoff_gate.gates.gate import Gate

    if getattr(args, "policy", None) is None:
        raise UsageError("--key needs --policy")
    key = replace(key, prompt=False)
    problem = Gate.unattended_problem(key)
    if problem is not None:
        raise UsageError(problem)
    return key


def load_command(command: str) -> ModuleType:
    """Import one command's module. A command that opens the app asks for its frame rate
    first, since Textual reads it when it is imported (``cli.frame_rate``); one that needs
    an extra's packages fails with ``MissingExtra`` naming it when they are not installed."""
    if command in APP_COMMANDS:
        prefer_tui_frame_rate()
    extra = COMMAND_EXTRAS.get(command)
    with needs_extra(extra) if extra else nullcontext():
        return importlib.import_module(COMMANDS.get(command) or SUB_COMMANDS[command])


def internal_error(command: str, exc: Exception, env: Environment) -> int:
    """Say an unexpected error in one escape-free line and exit 2.

    A traceback quotes paths, run names and payload text an agent chose, so it never
    reaches the terminal unless ``HANDOFF_GATE_TRACEBACK=1`` asks for it (debugging).
    Nothing is delivered and nothing is approved on this path.
    """
    if env.traceback:
        traceback.print_exception(exc, file=sys.stderr)
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    print(f"handoff-gate {command}: internal error: {flat(what)[:_MAX_ERROR]}", file=sys.stderr)
    return USAGE
