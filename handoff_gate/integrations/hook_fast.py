"""``handoff-gate hook AGENT RUN --policy P`` answering a call an ``[[auto]]`` rule approves,
before the command line, the Gate or pydantic load.

A coding agent runs its hook before every tool call, so the calls a policy approves by
rule (``git status``, reading a file) pay the hook's start-up on every step of the
agent. The full command loads the argument parser, the configuration, the contracts
and inspection (pydantic among them) before it stores anything: many times the cost of
starting Python. This path loads only what such a call needs: the event's parser, the
policy, the rules and their shell grammar, the run-folder store and the audit log.

It answers only when everything is plain: the words are ``hook AGENT RUN`` with no
option but ``--timeout``, ``--on-timeout`` and ``--policy``; no store, contracts or key
comes from the environment; the policy loads; an approve rule (and no reject rule)
matches the call; the tool-call ``[[rule]]`` lets a rule's approval settle it alone
(``auto = true``, one approval required, no producers, no deadline); the tool's contract
is one the harness ships and the arguments are flat values that plainly satisfy it
(``plainly_valid``); and the text holds nothing inspection would flag (secrets, unsafe
characters, escapes, an interactive session). Then it writes what the full path writes,
through the same store calls (``FilesystemStore``: the same files, the same fsyncs, the
same log): the contract, the handoff, the rule's decision and the delivery claim, and
prints the harness's allow. The envelope, decision and delivery JSON it restates are
pinned to the full path's bytes by tests/test_hook_fast.py.

Anything else, and any exception, falls through to the full command (``answered``
returns ``None``), which decides properly: a fast path that cannot vouch for a call
never answers it. Before the first write nothing is written; after it, every write is
one the full path finds and resumes (the idempotency key names the stored call, and a
rule never decides over a record already there, a delivery is never claimed twice), so
what the full path answers then is fail-closed too. The event read from stdin is handed
on (``sys.stdin``) so the full command reads the same bytes. A signal that would stop
the full hook stops this one with exit 2, which every harness reads as a block.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.canonical import document_bytes, document_sha256
from handoff_gate.gates.inspect.secret_patterns import kinds_in
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.lock_bound import lock_deadline
from handoff_gate.gates.submit.tool_keys import (
    TOOL_PHASE,
    approved_bytes_digest,
    call_key,
    tool_schema_id,
)
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.environment import KEY_ENV, SCHEMAS_ENV, STORE_ENV
from handoff_gate.gates.vocab.limits import (
    HOOK_EVENT_SLACK,
    MAX_HANDOFF_BYTES,
    MAX_TOOL_DESCRIPTION,
)
from handoff_gate.gates.vocab.safe_text import text_may_hold_unsafe
from handoff_gate.integrations.coding_agents import (
    FREE_FORM,
    HARNESSES,
    Approval,
    Harness,
    ToolEvent,
    canonical,
)
from handoff_gate.integrations.hook_rules import matching_rule

#: The options this path takes (each with one value); any other word falls through.
OPTIONS = frozenset({"--timeout", "--on-timeout", "--policy"})
#: The environment that would change what the full command does: it falls through.
OVERRIDES = (STORE_ENV, SCHEMAS_ENV, KEY_ENV)
#: The longest this path waits for the run's log lock before handing the call to the
#: full command (which then waits within the hook's own deadline); never more than a
#: quarter of that deadline (``--timeout``, else the harness's default).
LOCK_BUDGET_S = 2.0
#: The largest arguments answered here; a bigger call goes the full way.
MAX_ARGS_BYTES = 64 * 1024
#: Integers beyond this are not exact in every JSON reader: the full inspection judges them.
MAX_EXACT_INT = 2**53
#: Envelope and decision record formats (``vocab.envelope.FORMAT``, ``DECISION_FORMAT``),
#: pinned to the models by tests/test_hook_fast.py.
ENVELOPE_FORMAT = "handoff-gate/1"
DECISION_FORMAT = "handoff-gate-decision/1"
#: The signals that stop the full hook with a block (``coding_agent_deadline.STOP_SIGNALS``,
#: pinned by tests/test_hook_fast.py); SIGINT arrives as ``KeyboardInterrupt``.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1)
#: The exit code every harness reads as "do not run the tool" (``cli.errors.USAGE``).
BLOCK = 2

#: ``gates.inspect.tool_session.SESSION_KEY``, whose module (and its findings vocabulary)
#: loads only for a contract that carries it (tests/test_hook_fast.py pins the name).
SESSION_KEY = "x-handoff-gate-session"
_SCHEMA_KEYS = frozenset({"type", "properties", "required", SESSION_KEY})
_PROPERTY_KEYS = frozenset({"type", "description", "minLength", "minimum", "maximum", "enum"})
_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int,)}
_TYPES["boolean"] = (bool,)


class _Stopped(BaseException):
    """A stop signal arrived while this path ran."""


def answered(words: list[str]) -> int | None:
    """Answer ``handoff-gate WORDS`` here and return the exit code, or ``None`` when the
    full command must run (see the module docstring)."""
    plan = _plan(words)
    if plan is None:
        return None
    harness, run, policy_path, timeout = plan
    try:
        previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    except ValueError:  # not the main thread: the full command's own handling applies
        return None
    try:
        data = sys.stdin.buffer.read(MAX_HANDOFF_BYTES + HOOK_EVENT_SLACK + 1)
        sys.stdin = io.TextIOWrapper(io.BytesIO(data))  # the full command reads it again
        budget = min(LOCK_BUDGET_S, timeout / 4)
        stdout = _answer(harness, run, policy_path, data, budget)
    except (_Stopped, KeyboardInterrupt) as stop:  # as the full hook: stopped is blocked
        why = str(stop) or "interrupted"
        os.write(2, f"handoff-gate hook {harness.name}: {why}; the call is blocked\n".encode())
        return BLOCK
    except Exception:  # fail closed: the full command decides
        return None
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)
    if stdout is None:
        return None
    _write_all(1, stdout.encode())
    return 0


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(f"stopped by {signal.Signals(signum).name}")


def _plan(words: list[str]) -> tuple[Harness, str, str, float] | None:
    """The harness, run, policy and deadline of plain ``hook AGENT RUN`` words, else
    ``None``."""
    if len(words) < 3 or words[0] != "hook" or words[1] not in HARNESSES:
        return None
    if any(os.environ.get(name) for name in OVERRIDES):
        return None
    given: dict[str, str] = {}
    runs: list[str] = []
    rest = iter(words[2:])
    for word in rest:
        if word.startswith("-"):
            name, equals, value = word.partition("=")
            if name not in OPTIONS or name in given:
                return None
            given[name] = value if equals else next(rest, "")
            if not given[name] or given[name].startswith("-"):
                return None
        else:
            runs.append(word)
    policy, run = given.get("--policy", ""), runs[0] if len(runs) == 1 else ""
    harness = HARNESSES[words[1]]
    timeout = _usable_timeout(given, harness.default_timeout)
    if not policy or not run or "://" in run or timeout is None:
        return None
    return harness, run, policy, timeout


def _usable_timeout(given: dict[str, str], default: float) -> float | None:
    """The deadline ``--timeout`` gives (else ``default``), when it and ``--on-timeout``
    are what the full command accepts here; ``None`` otherwise."""
    if given.get("--on-timeout", "deny") != "deny":
        return None  # ``ask`` is refused for some harnesses: the full command says so
    if "--timeout" not in given:
        return default
    try:
        seconds = float(given["--timeout"])
    except ValueError:
        return None
    return seconds if 1.0 <= seconds <= 86_400.0 else None


def _answer(harness: Harness, run: str, policy_path: str, data: bytes, budget: float) -> str | None:
    """The harness's answer once the call is stored, decided and claimed, or ``None``."""
    if len(data) > MAX_HANDOFF_BYTES + HOOK_EVENT_SLACK:
        return None
    event = harness.parse(data)
    policy = Policy.load(Path(policy_path))
    rule = matching_rule(policy, harness, event)
    phase_rule = policy.rule_for(TOOL_PHASE)
    if rule is None or rule.decide is not Action.APPROVE or phase_rule is None:
        return None
    if not phase_rule.auto or phase_rule.required != 1 or phase_rule.producers:
        return None
    if phase_rule.expires_in is not None:
        return None
    schema, description = harness.contract(event.tool)
    if schema is FREE_FORM or len(description or "") > MAX_TOOL_DESCRIPTION:
        return None
    args = canonical(event.args).encode()
    if len(args) > MAX_ARGS_BYTES or not plainly_valid(schema, event.args):
        return None
    if not plainly_clean(schema, event.args, args):
        return None
    with lock_deadline(time.monotonic() + budget):
        stored = _store(FilesystemStore(), run, harness, event, schema, description, args)
        if stored is None:
            return None
        handoff_id, sha256, store = stored
        _decide(store, run, handoff_id, sha256, rule.name, rule.decided_by, policy.digest)
        _claim(store, run, handoff_id)
    approval = Approval(dict(event.args), False, rule.decided_by, handoff_id)
    answer = harness.allow(event, approval)
    if answer.stderr or answer.code:
        return None  # never: an allow of the model's own arguments is plain stdout
    return answer.stdout


def plainly_valid(schema: dict[str, Any], args: dict[str, Any]) -> bool:
    """Whether ``args`` satisfy ``schema`` in the one shape this path judges: an object
    schema (its interactive-session annotation aside, which ``plainly_clean`` reads) of
    flat string, integer, number and boolean properties (``minLength``, ``minimum``,
    ``maximum``, ``enum``), each argument one of them, non-empty strings and exact
    integers. ``False`` is not "invalid": the full inspection judges those calls."""
    if set(schema) - _SCHEMA_KEYS or schema.get("type") != "object":
        return False
    properties, required = schema.get("properties", {}), schema.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        return False
    if any(name not in args for name in required):
        return False
    return all(_plain_value(properties.get(key), value) for key, value in args.items())


def _plain_value(prop: object, value: object) -> bool:
    if not isinstance(prop, dict) or set(prop) - _PROPERTY_KEYS:
        return False
    kinds = _TYPES.get(prop.get("type"))  # type: ignore[arg-type]
    if kinds is None or type(value) not in kinds:
        return False
    if isinstance(value, str):
        if not value.strip() or len(value) < prop.get("minLength", 0):
            return False
    elif isinstance(value, int) and not isinstance(value, bool):
        low, high = prop.get("minimum", -MAX_EXACT_INT), prop.get("maximum", MAX_EXACT_INT)
        if not (-MAX_EXACT_INT <= low <= value <= high <= MAX_EXACT_INT):
            return False
    if "enum" in prop:
        return any(type(item) is type(value) and item == value for item in prop["enum"])
    return True


def plainly_clean(schema: dict[str, Any], args: dict[str, Any], text: bytes) -> bool:
    """Whether the arguments' stored text holds nothing the full inspection would flag:
    no secret's marker, no unsafe character, no ``\\u`` escape (which could spell
    either), and, for a tool with an interactive channel, no session opened."""
    decoded = text.decode("utf-8")
    if "\\u" in decoded or kinds_in(decoded) or text_may_hold_unsafe(decoded, text):
        return False
    if SESSION_KEY not in schema:
        return True
    from handoff_gate.gates.inspect.tool_session import session_findings

    return not session_findings(args, schema)


def _store(
    store: FilesystemStore,
    run: str,
    harness: Harness,
    event: ToolEvent,
    schema: dict[str, Any],
    description: str | None,
    args: bytes,
) -> tuple[str, str, FilesystemStore] | None:
    """Store the contract and the call as ``submit_event`` does; ``(id, sha256, store)``,
    or ``None`` when the call was stored before (the full command resumes it)."""
    store.create(run)
    schema_id, digest = tool_schema_id(schema), document_sha256(schema)
    store.add_contract(run, schema_id, digest, document_bytes(schema), added=audit.now_iso())
    tool = _tool_fields(harness, event, description)
    base = _envelope_fields(store.run_name(run), (schema_id, digest), args, tool)
    written: list[bytes] = []

    def envelope(seq: int, handoff_id: str) -> bytes:
        fields = {"format": ENVELOPE_FORMAT, "id": handoff_id, "seq": seq, **base}
        written.append((json.dumps(fields, ensure_ascii=True, indent=2) + "\n").encode())
        return written[-1]

    key = call_key(event.session, event.call_id, approved_bytes_digest(event.tool, schema, args))
    stored = store.add_handoff(run, TOOL_PHASE, envelope, idempotency_key=key)
    if not stored.created:
        return None
    sha256 = hashlib.sha256(written[-1]).hexdigest()
    audit.append(
        run,
        audit.Event.HANDOFF_SUBMITTED,
        store=store,
        handoff=stored.id,
        schema=schema_id,
        sha256=sha256,
        size=len(written[-1]),
    )
    return stored.id, sha256, store


def _envelope_fields(
    run_name: str, schema: tuple[str, str], args: bytes, tool: dict[str, Any]
) -> dict[str, Any]:
    """Every envelope field of the call but its id and number, in ``submit``'s order;
    ``schema`` is the contract's id and digest, ``tool`` the call's ``ToolCall``."""
    return {
        "run": run_name,
        "phase": TOOL_PHASE,
        "from": None,
        "to": None,
        "schema": schema[0],
        "schema_sha256": schema[1],
        "created": audit.now_iso(),
        "producer": {},
        "raw": args.decode("utf-8"),
        "kind": "tool_call",
        "tool": tool,
    }


def _tool_fields(harness: Harness, event: ToolEvent, description: str | None) -> dict[str, Any]:
    """The envelope's ``tool``, as ``ToolCall.model_dump(exclude_none=True)`` has it."""
    tool: dict[str, Any] = {"name": event.tool, "call_id": event.call_id}
    if description is not None:
        tool["description"] = description
    tool.update(agent=harness.name, thread=event.session, sole_waiter=True)
    return tool


def _decide(
    store: FilesystemStore,
    run: str,
    handoff_id: str,
    sha256: str,
    rule: str,
    reviewer: str,
    policy: str,
) -> None:
    """Publish the rule's approval (``record_bytes``'s fields) with its ``decision_written``
    event, as ``by_rule`` does."""
    record: dict[str, Any] = {
        "format": DECISION_FORMAT,
        "handoff": handoff_id,
        "run": store.run_name(run),
        "action": "approve",
        "reason": None,
        "category": None,
        "reviewer": reviewer,
        "decided_at": audit.now_iso(),
        "sha256": sha256,
        "verdict": "approvable",
        "codes": [],
        "rule": rule,
        "policy_sha256": policy,
    }
    data = (json.dumps(record, ensure_ascii=True, indent=2) + "\n").encode()
    event = audit.written_event(record, rule=rule, policy_sha256=policy)
    store.create_decision(run, handoff_id, None, data, event)


def _claim(store: FilesystemStore, run: str, handoff_id: str) -> None:
    """Claim the approval's one delivery with its ``wait_returned`` event (``Pickup``)."""
    at = audit.now_iso()
    event = {"event": audit.Event.WAIT_RETURNED.value, "at": at, "handoff": handoff_id}
    event["outcome"] = "approved"
    record = json.dumps({"handoff": handoff_id, "at": at}).encode()
    store.create_delivery(run, handoff_id, record, {**event, "delivered": True})


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
