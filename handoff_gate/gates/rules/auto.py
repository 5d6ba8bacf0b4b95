"""``[[auto]]`` tables: the calls and handoffs a policy decides without asking anyone.

Keys: docs/security.md. They live in the policy file, so the digest that pins the policy
pins them. Checked strictly: a typo in a rule must not approve more than it says.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.ids import PHASE_PATTERN
from handoff_gate.gates.vocab.policy_error import PolicyError
from handoff_gate.gates.vocab.safe_text import has_unsafe

_KEYS = frozenset({"name", "decide", "tool", "phase", "agent", "argv", "args"})
#: Bounds on what a table may hold: a rule is a line a person reads, not a program.
MAX_NAME = 100
MAX_GLOB = 200
MAX_WORDS = 32
MAX_ARGS = 32
#: The phase tool-call handoffs carry (``gates.submit.tool_call.TOOL_PHASE``): a rule
#: about tool calls says ``tool``, so a ``phase`` rule never decides one.
TOOL_CALL_PHASE = "tool-call"


def _empty() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoRule:
    """One ``[[auto]]`` table, checked (``parse_auto``)."""

    name: str
    decide: Action
    #: Glob over the tool name: the rule is about tool calls. Exactly one of ``tool``
    #: and ``phase`` is set.
    tool: str | None = None
    #: A phase name: the rule is about that phase's handoffs.
    phase: str | None = None
    #: Glob over the agent that made the call (tool calls only).
    agent: str | None = None
    #: The words the ``command`` argument, parsed as one shell command, starts with.
    argv: tuple[str, ...] = ()
    #: Argument name -> glob over that argument's string value.
    args: Mapping[str, str] = field(default_factory=_empty, hash=False)

    def __post_init__(self) -> None:
        # A rule is a value: a dict handed in stays the caller's, never the rule's.
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))
        object.__setattr__(self, "argv", tuple(self.argv))

    @property
    def decided_by(self) -> str:
        """How records and screens name who decided: ``rule read-only git``."""
        return f"rule {self.name}"

    def describe(self) -> str:
        """One line saying what the rule decides, for ``handoff-gate policy`` to print
        (plain text: the caller makes it safe for a terminal)."""
        verb = "approves" if self.decide is Action.APPROVE else "rejects"
        what = f"{self.tool} calls" if self.tool is not None else f"{self.phase} handoffs"
        if self.agent is not None:
            what += f" by {self.agent}"
        if self.argv:
            inside = "is one simple command" if self.decide is Action.APPROVE else "runs"
            what += f" whose command {inside} starting {json.dumps(list(self.argv))}"
        for name, glob in self.args.items():
            what += f", {json.dumps(name)} matching {json.dumps(glob)}"
        return f"rule {json.dumps(self.name)} {verb} {what}"

    def to_toml(self) -> str:
        """The ``[[auto]]`` table that ``parse_auto`` reads back as this rule."""
        lines = ["[[auto]]", f"name = {_toml(self.name)}", f"decide = {_toml(self.decide.value)}"]
        for key in ("tool", "phase", "agent"):
            value = getattr(self, key)
            if value is not None:
                lines.append(f"{key} = {_toml(value)}")
        if self.argv:
            lines.append(f"argv = [{', '.join(_toml(word) for word in self.argv)}]")
        if self.args:
            lines.append("[auto.args]")
            lines.extend(f"{_toml(k)} = {_toml(v)}" for k, v in self.args.items())
        return "\n".join(lines) + "\n"


def _toml(text: str) -> str:
    """A TOML basic string: printable ASCII as is, everything else escaped, so the
    proposals file shows every character of what the rule would match."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def _fail(where: str, problem: str) -> PolicyError:
    return PolicyError(f"{where}: {problem}")


def _text(value: object, where: str, limit: int, what: str) -> str:
    """A non-empty printable one-line string of at most ``limit`` characters."""
    if (
        not isinstance(value, str)
        or not value
        or len(value) > limit
        or value != value.strip()
        or has_unsafe(value)
        or "\n" in value
        or "\t" in value
    ):
        raise _fail(where, f"must be {what}: 1-{limit} printable characters on one line")
    return value


def _glob(value: object, where: str) -> str:
    glob = _text(value, where, MAX_GLOB, "a glob")
    fnmatch.translate(glob)  # every string is a glob; this only proves it compiles
    return glob


def _one(table: object, index: int, names: set[str]) -> AutoRule:
    where = f"auto[{index}]"
    if not isinstance(table, dict):
        raise _fail(where, "must be a table ([[auto]])")
    extra = sorted(set(table) - _KEYS)
    if extra:
        raise _fail(f"{where}.{extra[0][:40]}", f"unknown key (allowed: {sorted(_KEYS)})")
    name = _text(table.get("name"), f"{where}.name", MAX_NAME, "the rule's name")
    if name in names:
        raise _fail(f"{where}.name", f"{name!r} names an earlier rule too")
    names.add(name)
    decide = table.get("decide")
    if decide not in ("approve", "reject"):
        raise _fail(f"{where}.decide", 'must be "approve" or "reject"')
    tool, phase = table.get("tool"), table.get("phase")
    if (tool is None) == (phase is None):
        raise _fail(where, "needs exactly one of tool (tool calls) and phase (handoffs)")
    if tool is not None:
        tool = _glob(tool, f"{where}.tool")
    if phase is not None:
        if not isinstance(phase, str) or not PHASE_PATTERN.match(phase):
            raise _fail(f"{where}.phase", "must be a phase name like 'plan'")
        if phase == TOOL_CALL_PHASE:
            raise _fail(f"{where}.phase", "tool calls are named by tool = …, not by phase")
    agent = table.get("agent")
    if agent is not None:
        if tool is None:
            raise _fail(f"{where}.agent", "only a tool rule names an agent")
        agent = _glob(agent, f"{where}.agent")
    argv = _argv(table.get("argv"), f"{where}.argv", tool)
    args = _args(table.get("args"), f"{where}.args")
    return AutoRule(
        name=name, decide=Action(decide), tool=tool, phase=phase, agent=agent, argv=argv,
        args=args,
    )  # fmt: skip


def _argv(value: object, where: str, tool: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if tool is None:
        raise _fail(where, "only a tool rule reads a command's words")
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_WORDS:
        raise _fail(where, f"must be a list of 1-{MAX_WORDS} words")
    for word in value:
        if not isinstance(word, str) or not word or len(word) > MAX_GLOB or has_unsafe(word):
            raise _fail(where, f"each word must be 1-{MAX_GLOB} printable characters")
    return tuple(value)


def _args(value: object, where: str) -> Mapping[str, str]:
    if value is None:
        return _empty()
    if not isinstance(value, dict) or not 1 <= len(value) <= MAX_ARGS:
        raise _fail(where, f"must be a table of 1-{MAX_ARGS} argument = glob lines")
    checked = {}
    for key, glob in value.items():
        name = _text(key, f"{where}: a key", MAX_GLOB, "an argument name")
        checked[name] = _glob(glob, f"{where}.{json.dumps(name)}")
    return MappingProxyType(checked)


def parse_auto(tables: object) -> tuple[AutoRule, ...]:
    """The ``[[auto]]`` tables of a parsed policy (``None``: there are none).
    ``PolicyError`` with one line naming the table and field of the first problem."""
    if tables is None:
        return ()
    if not isinstance(tables, list):
        raise _fail("auto", "must be [[auto]] tables")
    names: set[str] = set()
    return tuple(_one(table, index, names) for index, table in enumerate(tables))
