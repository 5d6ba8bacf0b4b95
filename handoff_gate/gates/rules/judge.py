"""Which ``[[auto]]`` rule, if any, decides a handoff.

A rule is matched against a ``Subject``: what the handoff is about, built from the stored
envelope (``subject_of``) or from a hook's event before the call is stored. Approving is
the dangerous direction, so an approve rule matches only when everything it names is
there and plain, and a matching reject rule wins over every approve rule (the matching
rules are docs/security.md's *Policy rules*).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from handoff_gate.gates.rules.auto import AutoRule
from handoff_gate.gates.rules.shell import (
    commands_inside,
    simple_command,
    starts_with,
    too_long_to_read,
)
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.safe_text import has_unsafe

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.envelope import Envelope

TOOL_CALL = "tool_call"
PHASE = "phase"
#: The argument a shell tool's command is in (Claude Code's Bash, Gemini's
#: run_shell_command, Codex's shell): the one ``argv`` reads.
COMMAND = "command"


@dataclass(frozen=True, slots=True)
class Subject:
    """What a handoff asks to be allowed: ``kind`` is ``"tool_call"`` or ``"phase"``;
    ``args`` a tool call's arguments, or a phase's payload when it is an object."""

    kind: str
    phase: str
    tool: str | None
    agent: str | None
    args: Mapping[str, object] = field(hash=False)


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the key {key[:40]!r} appears twice")
        seen[key] = value
    return seen


def parse_args(data: bytes) -> Mapping[str, object]:
    """A JSON object's members; ``ValueError`` for anything else or a repeated key (a
    rule reading the first ``command`` while the tool ran the last would be wrong)."""
    value = json.loads(data, object_pairs_hook=_unique)
    if not isinstance(value, dict):
        raise ValueError("the arguments are not a JSON object")
    return MappingProxyType(value)


def subject_of(envelope: Envelope) -> Subject:
    """What a stored handoff's envelope asks (its producer's exact bytes, parsed, as the
    arguments). ``ValueError`` when those bytes are not a JSON object: no rule decides
    what cannot be read, a person does."""
    data = envelope.producer_bytes()
    if data is not None:
        args = parse_args(data)
    elif isinstance(envelope.payload, dict):
        args = MappingProxyType(dict(envelope.payload))
    else:
        raise ValueError("the handoff carries no JSON object")
    if envelope.kind == TOOL_CALL and envelope.tool is not None:
        return Subject(TOOL_CALL, envelope.phase, envelope.tool.name, envelope.tool.agent, args)
    return Subject(PHASE, envelope.phase, None, None, args)


def rule_for(rules: Sequence[AutoRule], subject: Subject) -> AutoRule | None:
    """The rule that decides ``subject``: the first matching reject rule, else the first
    matching approve rule, else ``None`` (a person decides)."""
    for action in (Action.REJECT, Action.APPROVE):
        for rule in rules:
            if rule.decide is action and matches(rule, subject):
                return rule
    return None


def matches(rule: AutoRule, subject: Subject) -> bool:
    """Whether ``rule`` covers ``subject`` (the module docstring says how)."""
    if rule.tool is not None:
        if subject.kind != TOOL_CALL or subject.tool is None:
            return False
        if not fnmatch.fnmatchcase(subject.tool, rule.tool):
            return False
        if rule.agent is not None and (
            subject.agent is None or not fnmatch.fnmatchcase(subject.agent, rule.agent)
        ):
            return False
    elif subject.kind != PHASE or subject.phase != rule.phase:
        return False
    approve = rule.decide is Action.APPROVE
    if not _command_matches(rule, subject.args, approve):
        return False
    return all(_arg_matches(subject.args, k, g, approve) for k, g in rule.args.items())


def _command_matches(rule: AutoRule, args: Mapping[str, object], approve: bool) -> bool:
    """The ``command`` argument against ``argv``. An approve rule also requires a
    command, whenever the call has one, to be one simple command, ``argv`` or not."""
    if COMMAND not in args:
        return not rule.argv
    command = args[COMMAND]
    if approve:
        if not isinstance(command, str):
            return False
        words = simple_command(command)
        return words is not None and (not rule.argv or starts_with(words, rule.argv, by_name=False))
    if not rule.argv:
        return True
    text = command if isinstance(command, str) else json.dumps(command)
    if too_long_to_read(text):
        return True
    inside = commands_inside(text)
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        inside = (tuple(command), *inside, *commands_inside(" ".join(command)))
    return any(starts_with(words, rule.argv, by_name=True) for words in inside)


def _arg_matches(args: Mapping[str, object], name: str, glob: str, approve: bool) -> bool:
    if name not in args:
        return False
    value = args[name]
    if approve:
        if not isinstance(value, str) or has_unsafe(value) or "\n" in value or "\t" in value:
            return False
        if ".." in value.replace("\\", "/").split("/"):
            return False
        return fnmatch.fnmatchcase(value, glob)
    text = value if isinstance(value, str) else json.dumps(value)
    return fnmatch.fnmatchcase(text, glob)
