"""What each coding agent's command hook sends on stdin, and the answer it acts on.

Each agent speaks its own dialect, and Claude Code and Gemini run the tool on any exit
but 2, so every harness answers with one of three documented forms (allow, deny, or "no
one decided") and anything else the hook meets is exit 2 (``cli.commands.hook``).

An approval is only answered as "allow" when the harness will run exactly the arguments
the gate delivers: Claude Code and Codex's ``PreToolUse`` replace the input
(``updatedInput``), Gemini merges keys into it (so it cannot remove one), and Codex's
``PermissionRequest`` cannot change it at all. Where the delivery differs in a way the
harness cannot carry out, the answer is a deny that says why.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from handoff_gate.gates.vocab.limits import MAX_TOOL_TEXT
from handoff_gate.integrations.harness_names import CLAUDE_CODE, CODEX, GEMINI, HARNESS_NAMES
from handoff_gate.schemas import HARNESS_TOOLS

#: A tool the agent's own contracts do not name (an MCP tool, a newer built-in): any
#: object, every key shown and delivered as sent (never an empty delivery).
FREE_FORM: dict[str, Any] = {"type": "object", "additionalProperties": True}


class HookInputError(ValueError):
    """The event on stdin is not one this harness sends: the hook blocks (exit 2)."""


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One tool call a harness asks about: ``call_id`` is the harness's id for the call,
    or, where it sends none, a digest of the event (so the same event sent again finds
    the same handoff); ``session`` becomes the handoff's conversation (``thread``)."""

    event: str
    tool: str
    args: dict[str, Any]
    call_id: str
    session: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What the hook prints and the exit code it ends with."""

    stdout: str = ""
    stderr: str = ""
    code: int = 0


@dataclass(frozen=True, slots=True)
class Approval:
    """An approved call: ``args`` as the gate delivers them (the reviewer's edit, when
    ``edited``), who approved it and in which handoff."""

    args: dict[str, Any]
    edited: bool
    reviewer: str
    handoff_id: str


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object with a key given twice is refused: the harness and the gate could
    otherwise read different arguments out of the same text."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise HookInputError(f"the event has the key {key!r} twice")
        seen[key] = value
    return seen


def canonical(value: Any) -> str:
    """One text per JSON value, so equal arguments compare equal (and ``1`` is not ``true``)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise HookInputError(f"the event has no {key} (a non-empty string)")
    if len(value) > MAX_TOOL_TEXT:
        raise HookInputError(f"the event's {key} is over {MAX_TOOL_TEXT} characters")
    return value


class Harness(ABC):
    """One coding agent's hook protocol."""

    #: The ``hook`` command's name for it, also the handoff's agent.
    name: ClassVar[str]
    #: The hook events it sends that ask about a tool call.
    events: ClassVar[frozenset[str]]
    #: The hook's ``--timeout`` unless given: below the harness's own default hook
    #: timeout, so the hook always answers before the harness gives up on it.
    default_timeout: ClassVar[float]
    #: Its built-in tools' contracts, a file in ``schemas/harness/``.
    contracts_file: ClassVar[str]

    def parse(self, raw: bytes) -> ToolEvent:
        """The tool call in the harness's event (``HookInputError`` if it is not one)."""
        try:
            data = json.loads(raw, object_pairs_hook=_unique_keys)
        except HookInputError:
            raise
        except ValueError as exc:
            raise HookInputError(f"the event is not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise HookInputError("the event is not a JSON object")
        event = data.get("hook_event_name")
        if event not in self.events:
            names = ", ".join(sorted(self.events))
            raise HookInputError(f"{self.name} hooks answer {names}, not {event!r}")
        args = data.get("tool_input")
        if not isinstance(args, dict):
            raise HookInputError("the event's tool_input is not an object")
        tool = _text(data, "tool_name")
        return ToolEvent(event, tool, args, self.call_id(data), _text(data, "session_id"))

    def call_id(self, data: dict[str, Any]) -> str:
        """The harness's id for the call, else a digest of what identifies this event."""
        given = data.get("tool_use_id")
        if isinstance(given, str) and given.strip():
            return _text(data, "tool_use_id")
        parts = [data.get(k) for k in ("hook_event_name", "session_id", "turn_id", "timestamp")]
        parts += [data.get("tool_name"), data.get("tool_input")]
        return "event-" + hashlib.sha256(canonical(parts).encode()).hexdigest()[:32]

    def contract(self, tool: str) -> tuple[dict[str, Any], str | None]:
        """The tool's argument schema and description, or the free-form object."""
        tools = json.loads((HARNESS_TOOLS / self.contracts_file).read_text("utf-8"))["tools"]
        known = tools.get(tool)
        if known is None:
            return FREE_FORM, None
        return known["input_schema"], known["description"]

    @abstractmethod
    def allow(self, event: ToolEvent, approval: Approval) -> Answer:
        """Run the call with the approved arguments (or deny: the harness cannot)."""

    @abstractmethod
    def deny(self, event: ToolEvent, reason: str) -> Answer:
        """Do not run the call; ``reason`` goes back to the model."""

    #: Whether the harness has a prompt of its own to hand an undecided call to
    #: (``hook --on-timeout ask``); the others can only be told deny.
    can_hand_over: ClassVar[bool] = False

    def undecided(self, event: ToolEvent, reason: str) -> Answer:
        """No one decided in time and the hook was told to hand the call over to the
        harness's own prompt (``--on-timeout ask``): only where it has one."""
        return self.deny(event, reason)


def _json(answer: dict[str, Any]) -> Answer:
    return Answer(stdout=json.dumps(answer, ensure_ascii=False) + "\n")


def _pre_tool_use(
    event: ToolEvent, decision: str, reason: str, updated: dict[str, Any] | None = None
) -> Answer:
    """The ``PreToolUse`` answer Claude Code and Codex share (``hookSpecificOutput``)."""
    output: dict[str, Any] = {
        "hookEventName": event.event,
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    if updated is not None:
        output["updatedInput"] = updated
    return _json({"hookSpecificOutput": output})


def _permission_request(event: ToolEvent, decision: dict[str, Any]) -> Answer:
    """The ``PermissionRequest`` answer Claude Code and Codex share (``decision.behavior``)."""
    return _json({"hookSpecificOutput": {"hookEventName": event.event, "decision": decision}})


def _approved_by(approval: Approval) -> str:
    edited = " with an edit" if approval.edited else ""
    return f"approved{edited} by {approval.reviewer} in handoff-gate ({approval.handoff_id})"


def _unchangeable(event: ToolEvent, approval: Approval, harness: str) -> str | None:
    """Why ``harness``, which runs the model's own arguments, cannot run this approval."""
    if canonical(approval.args) == canonical(event.args):
        return None
    what = "the reviewer's edit" if approval.edited else "the arguments the contract admits"
    return (
        f"{_approved_by(approval)}, but {harness} runs only the model's own arguments and "
        f"{what} differ from them; call the tool again with: {canonical(approval.args)}"
    )


class _PreToolUseHarness(Harness):
    """Claude Code and Codex: the same two events, answered the same way
    (``hookSpecificOutput``), and the same 600 s hook timeout; only what each does
    with changed arguments differs."""

    events = frozenset({"PreToolUse", "PermissionRequest"})
    default_timeout = 540.0  # their hook timeout is 600 s

    def deny(self, event: ToolEvent, reason: str) -> Answer:
        if event.event == "PermissionRequest":
            return _permission_request(event, {"behavior": "deny", "message": reason})
        return _pre_tool_use(event, "deny", reason)


class ClaudeCode(_PreToolUseHarness):
    """Claude Code: ``PreToolUse`` (and ``PermissionRequest``) command hooks. Its
    ``updatedInput`` replaces the input, so any approved arguments can run."""

    name = CLAUDE_CODE
    contracts_file = "claude_code.json"

    def allow(self, event: ToolEvent, approval: Approval) -> Answer:
        changed = canonical(approval.args) != canonical(event.args)
        updated = approval.args if changed else None
        if event.event == "PermissionRequest":
            decision: dict[str, Any] = {"behavior": "allow"}
            if updated is not None:
                decision["updatedInput"] = updated
            return _permission_request(event, decision)
        return _pre_tool_use(event, "allow", _approved_by(approval), updated)

    can_hand_over = True

    def undecided(self, event: ToolEvent, reason: str) -> Answer:
        """``ask``: Claude Code's own prompt takes over (for ``PermissionRequest``, no
        decision does the same: its dialog is shown). Only on ``--on-timeout ask``:
        Claude Code's open issues report that ``ask`` does not block in auto mode."""
        if event.event == "PermissionRequest":
            return Answer(stderr=reason + "\n")
        return _pre_tool_use(event, "ask", reason)


class Codex(_PreToolUseHarness):
    """Codex CLI: ``PreToolUse``, whose ``allow`` with ``updatedInput`` runs the
    approved arguments (0.171 does), and ``PermissionRequest``, which refuses changed
    input: there only the model's own arguments can run."""

    name = CODEX
    contracts_file = "codex.json"

    def allow(self, event: ToolEvent, approval: Approval) -> Answer:
        changed = canonical(approval.args) != canonical(event.args)
        if event.event == "PermissionRequest":
            why_not = _unchangeable(event, approval, "Codex's permission request")
            if why_not is not None:
                return self.deny(event, why_not)
            return _permission_request(event, {"behavior": "allow"})
        if changed:
            return _pre_tool_use(event, "allow", _approved_by(approval), approval.args)
        return Answer()  # PreToolUse: no objection; Codex goes on as it would


class Gemini(Harness):
    """Gemini CLI: the ``BeforeTool`` hook, which sends no tool-call id."""

    name = GEMINI
    events = frozenset({"BeforeTool"})
    default_timeout = 50.0  # its hook timeout is 60 s unless the settings raise it
    contracts_file = "gemini.json"

    def allow(self, event: ToolEvent, approval: Approval) -> Answer:
        if canonical(approval.args) == canonical(event.args):
            return _json({"decision": "allow", "reason": _approved_by(approval)})
        removed = sorted(set(event.args) - set(approval.args))
        if removed:
            return self.deny(
                event,
                f"{_approved_by(approval)}, but Gemini CLI merges changed arguments into the "
                f"model's and cannot remove {', '.join(removed)}; call the tool again with: "
                f"{canonical(approval.args)}",
            )
        output = {"hookEventName": event.event, "tool_input": approval.args}
        answer = {"decision": "allow", "reason": _approved_by(approval)}
        return _json({**answer, "hookSpecificOutput": output})

    def deny(self, event: ToolEvent, reason: str) -> Answer:
        return _json({"decision": "deny", "reason": reason})


#: ``handoff-gate hook NAME``: every harness by its name, in ``HARNESS_NAMES``' order (a
#: name there without a class here fails on import, not when an agent calls the hook).
_BY_NAME: dict[str, Harness] = {h.name: h for h in (ClaudeCode(), Codex(), Gemini())}
HARNESSES: dict[str, Harness] = {name: _BY_NAME[name] for name in HARNESS_NAMES}
