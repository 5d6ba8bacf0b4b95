"""The hook command ``hook install`` writes into an agent's settings, and reading one back.

The agents run the tool when a hook command exits with anything but 2 (a gate killed,
crashed or not found included), so the gate is named by absolute path and run through
``/bin/sh``, which turns every failure into exit 2::

    /bin/sh -c '"$0" "$@" || exit 2' /abs/bin/handoff-gate hook AGENT /abs/RUN --timeout S

The gate and its arguments are ``sh``'s own ``$0`` and ``$@``, never shell code, so no
path needs escaping and words appended reach the gate as arguments; ``/bin/sh`` by
absolute path keeps the agent's ``PATH`` out of it (docs/integration.md, "The wrapper").
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath

#: ``sh`` by absolute path: POSIX systems have it there whatever the agent's ``PATH``.
SHELL = "/bin/sh"
#: The script ``SHELL`` runs: the gate with its arguments, any failure exit 2.
WRAPPER = '"$0" "$@" || exit 2'
#: The least the agent's hook timeout must exceed the gate's deadline by: the gate's
#: start, its withdrawal and its answer happen after the deadline's clock started.
MIN_MARGIN = 5.0
#: What the gate is installed as; a word naming it this way is a gate command.
GATE_NAME = "handoff-gate"
_SHELLS = frozenset({"sh", "bash", "dash", "zsh"})
#: What the shell reads as an operator when a word is made only of these.
_OPERATOR_CHARS = frozenset("();<>|&")


def agent_timeout(deadline: float) -> int:
    """The agent's hook timeout for a gate that answers within ``deadline`` seconds:
    the deadline is at most 90% of it and at least 10 s below it (540 → 600, 50 → 60)."""
    return math.ceil(max(deadline + 10.0, deadline / 0.9))


def seconds_text(value: float) -> str:
    """``540`` for 540.0, ``2.5`` for 2.5: the shortest text ``--timeout`` reads back."""
    return str(int(value)) if value == int(value) else repr(value)


def hook_command(
    gate: Path, agent: str, run: str, deadline: float, store: str | None = None
) -> str:
    """The fail-closed command line running ``gate`` as ``agent``'s hook into ``run``
    (a folder, or with ``store`` a database run's id)."""
    where = ["--store", store] if store is not None else []
    words = [SHELL, "-c", WRAPPER, str(gate), *where, "hook", agent, run]
    return shlex.join([*words, "--timeout", seconds_text(deadline)])


@dataclass(frozen=True, slots=True)
class GateCall:
    """A hook command read back: the gate as named, its arguments after ``hook AGENT``,
    and whether a failure of the gate process still blocks (``wrapped``)."""

    gate: str
    agent: str
    args: tuple[str, ...]
    wrapped: bool
    #: ``--store URL`` given before ``hook``: the run is then a database run's id.
    store: str | None = None

    def option(self, name: str) -> str | None:
        """The last value given for option ``name`` (argparse keeps the last)."""
        value = None
        for i, word in enumerate(self.args):
            if word == name and i + 1 < len(self.args):
                value = self.args[i + 1]
            elif word.startswith(name + "="):
                value = word[len(name) + 1 :]
        return value

    @property
    def run(self) -> str | None:
        """The run: the first argument that is not an option or an option's value."""
        skip = False
        for word in self.args:
            if skip:
                skip = False
            elif word.startswith("-"):
                skip = "=" not in word
            else:
                return word
        return None


def _is_gate(word: str) -> bool:
    return PurePath(word).name == GATE_NAME


def _call(words: list[str], wrapped: bool) -> GateCall | None:
    """``GATE [--store URL] hook AGENT ARGS…`` in ``words``, if they are one."""
    if len(words) < 3 or not _is_gate(words[0]):
        return None
    rest, store = words[1:], None
    while rest and rest[0] != "hook":
        if rest[0] == "--store" and len(rest) > 1:
            store, rest = rest[1], rest[2:]
        else:
            rest = rest[1:]
    if len(rest) < 2 or rest[1] in ("install", "doctor"):
        return None
    return GateCall(words[0], rest[1], tuple(rest[2:]), wrapped, store)


def read_command(command: str) -> GateCall | None:
    """The gate call in a hook command, or None when it runs something else.

    Read forms: the wrapper ``hook install`` writes (``sh -c '"$0" "$@" || exit 2'
    GATE …``); a command ending ``|| exit 2`` (wrapped too, since the agents run it
    through a shell); ``sh -c 'TEXT'`` read as TEXT; and a plain ``GATE hook …`` (not
    wrapped). Text ``shlex`` cannot split is no gate call.
    """
    try:
        words = _shell_words(command)
    except ValueError:
        return None
    if len(words) >= 3 and PurePath(words[0]).name in _SHELLS and words[1] == "-c":
        if words[2] == WRAPPER:
            call = words[3:]
            return None if any(map(_operator, call)) else _call(call, wrapped=True)
        return read_command(words[2]) if len(words) == 3 else None
    wrapped = words[-3:] == ["||", "exit", "2"]
    call = words[:-3] if wrapped else words
    if any(map(_operator, call)):  # `GATE … || true || exit 2` never blocks
        return None
    return _call(call, wrapped=wrapped)


def _shell_words(command: str) -> list[str]:
    """The words the shell reads, its operators (``;``, ``||``, ``&``…) split out even
    where they touch a word, and quoted text kept whole."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _operator(word: str) -> bool:
    return bool(word) and all(c in _OPERATOR_CHARS for c in word)
