"""Reading a shell command the way the shell will, with tree-sitter's bash grammar.

A rule names a command by its first words (``argv = ["git", "status"]``). Matching
text would be defeated by the shell's own syntax (``git status; rm -rf ~`` starts with
``git status``), so the command is parsed by a real bash grammar and judged by its tree.

Two questions, with opposite ways to fail safe (docs/security.md lists what each
refuses or finds): ``simple_command``, for approve rules, is this exactly one simple
command and what are its words (anything else the shell would do is ``None``);
``commands_inside``, for reject rules, every command the text could run, past wrappers
and into ``sh -c`` strings, and every run of words of text the grammar cannot parse
(fail closed). Words come back unquoted; a word that is not literal (an expansion)
comes back as its source text in ``commands_inside``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: The longest command an approve rule reads; a longer one goes to a person.
MAX_COMMAND = 4096
#: How deep ``bash -c '… bash -c …'`` is followed before the rest counts as unparsable.
MAX_DEPTH = 8
#: How many words of each command ``commands_inside`` keeps: more than any rule's
#: ``argv`` holds, so a long command costs its length, never its length squared.
MAX_PREFIX = 64
#: The longest text ``commands_inside`` reads; ``too_long_to_read`` says when it is over.
MAX_SCAN = 64 * 1024
#: Commands that run the command in their arguments (for reject rules).
WRAPPERS = frozenset(
    {
        "builtin", "busybox", "chroot", "chrt", "command", "doas", "env", "exec", "find",
        "flock", "ionice", "nice", "nohup", "parallel", "setsid", "stdbuf", "strace", "sudo",
        "su", "taskset", "time", "timeout", "unbuffer", "watch", "xargs",
    }
)  # fmt: skip
#: Shells whose ``-c STRING`` (an option cluster holding ``c``) is itself a command line.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"})
#: Unquoted characters that make the shell expand a word into other words.
_EXPANDING = frozenset("*?[]{}~!$`")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_WORD_SPLIT = re.compile(r"[\s;&|()<>`$\"'\\]+")


@functools.cache
def _parser() -> Parser:
    """One parser for the process: tree-sitter's bash grammar (loaded on first use)."""
    from tree_sitter import Language, Parser

    return Parser(Language(_bash_grammar()))


def _bash_grammar() -> object:
    """The compiled bash grammar of ``tree_sitter_bash``, from its extension module alone
    (else through the package): the package's ``__init__`` imports ``importlib.resources``
    for a highlighting query no rule reads, a few milliseconds of every hook a rule
    answers (docs/performance.md)."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    name = "tree_sitter_bash._binding"
    found = importlib.util.find_spec("tree_sitter_bash")  # finds; runs nothing
    for folder in (found.submodule_search_locations or []) if found is not None else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"_binding{suffix}"
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                spec = importlib.util.spec_from_loader(name, loader, origin=str(path))
                if spec is None:
                    break
                binding = importlib.util.module_from_spec(spec)
                loader.exec_module(binding)
                return binding.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


def _parse(text: str) -> Node:
    return _parser().parse(text.encode("utf-8", "surrogatepass")).root_node


def simple_command(text: str) -> tuple[str, ...] | None:
    """The words of ``text`` when it is exactly one simple command, else ``None``."""
    if not isinstance(text, str) or len(text) > MAX_COMMAND:
        return None
    if not _PRINTABLE_ASCII.fullmatch(text):
        return None
    root = _parse(text)
    if root.has_error or root.type != "program" or len(root.children) != 1:
        return None
    command = root.children[0]
    if command.type != "command":
        return None
    words: list[str] = []
    end = 0  # the text is ASCII here, so byte offsets are character offsets
    for index, child in enumerate(command.children):
        field = command.field_name_for_child(index)
        if child.type == "command_name" and len(child.children) == 1:
            word = _literal(child.children[0])
        elif field == "argument":
            word = _literal(child)
        else:  # an assignment, a redirection, or anything else the shell does besides
            return None
        # Blanks, and only blanks, between words: the grammar skips some text as if it
        # were one (an escaped blank, `\ `) and splits some words the shell reads as one
        # (`'a b'\a`), both of which would make the words differ from what runs.
        gap = text[end : child.start_byte]
        if word is None or gap.strip(" ") or (words and not gap):
            return None
        words.append(word)
        end = child.end_byte
    if text[end:].strip(" "):
        return None
    return tuple(words) if words else None


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def _literal(node: Node) -> str | None:
    """The one word ``node`` is for the shell, or ``None`` when the shell would expand
    it (a variable, a substitution, a glob, a brace, a tilde) or it is not a word."""
    kind = node.type
    if kind in ("word", "number"):
        raw = _text(node)
        if any(c in _EXPANDING for c in raw.replace("\\\\", "").replace("\\", "")):
            return None
        return re.sub(r"\\(.)", r"\1", raw)  # a backslash quotes the next character
    if kind == "raw_string":
        raw = _text(node)
        return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == "'" else None
    if kind == "string":
        if any(child.type not in ('"', "string_content") for child in node.children):
            return None
        raw = _text(node)
        if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
            return None
        inner = raw[1:-1]
        if "$" in inner.replace("\\$", "") or "`" in inner.replace("\\`", ""):
            return None
        return re.sub(r'\\([$`"\\])', r"\1", inner)
    if kind == "concatenation":
        parts = [_literal(child) for child in node.children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return None


def too_long_to_read(text: str) -> bool:
    """Whether ``text`` is over ``MAX_SCAN``: a reject rule then matches it unread (fail
    closed), since reading it whole could take the hook's whole deadline."""
    return len(text) > MAX_SCAN


def commands_inside(text: str) -> tuple[tuple[str, ...], ...]:
    """Every command ``text`` could run, as its words: what a reject rule is matched
    against."""
    found: list[tuple[str, ...]] = []
    _collect(text, found, 0)
    return tuple(dict.fromkeys(found))


def _collect(text: str, found: list[tuple[str, ...]], depth: int) -> None:
    # The shell drops a backslash-newline before it reads words (`r\<newline>m` is `rm`);
    # inside single quotes it would not, which only makes a reject rule match more.
    text = text.replace("\\\n", "")
    root = _parse(text)
    if depth >= MAX_DEPTH or root.has_error:
        found.extend(_word_runs(text))
    for command in _commands(root):
        words = tuple(_word(child) for child in _parts(command))
        if words:
            _unwrapped(words, found, depth)


def _commands(node: Node) -> Iterator[Node]:
    """Every ``command`` node in the tree, nested ones (in substitutions) included."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command":
            yield current
        stack.extend(reversed(current.children))


def _parts(command: Node) -> Iterator[Node]:
    for index, child in enumerate(command.children):
        if child.type == "command_name" and child.children:
            yield child.children[0]
        elif command.field_name_for_child(index) == "argument":
            yield child


def _word(node: Node) -> str:
    """A word as a reject rule compares it: its literal value, ``$'…'`` decoded, else its
    source text (an expansion: no program name a rule spells)."""
    literal = _literal(node)
    if literal is not None:
        return literal
    raw = _text(node)
    if node.type == "ansi_c_string" and raw.startswith("$'") and raw.endswith("'"):
        try:
            return raw[2:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        except UnicodeDecodeError:
            return raw
    return raw


def _unwrapped(words: tuple[str, ...], found: list[tuple[str, ...]], depth: int) -> None:
    """``words``, and every command a wrapper or a shell among them would run."""
    found.append(words[:MAX_PREFIX])
    _shell_inside(words, found, depth)
    if _basename(words[0]) in WRAPPERS:
        # Which words are a wrapper's own option values (``sudo -u root rm``) differs
        # by wrapper, and wrappers nest (``sudo env X=1 rm``): every word that is not
        # an option starts a command, to be safe. One pass, so nesting costs nothing.
        for index in range(1, len(words)):
            word = words[index]
            if word and not word.startswith("-") and "=" not in word:
                found.append(words[index : index + MAX_PREFIX])
                _shell_inside(words[index : index + MAX_PREFIX], found, depth)
            if " " in word and depth < MAX_DEPTH:  # `env -S 'rm x'`, `watch 'rm x'`
                _collect(word, found, depth + 1)


def _shell_inside(words: tuple[str, ...], found: list[tuple[str, ...]], depth: int) -> None:
    """The commands in ``sh -c STRING`` or ``eval WORDS…``, parsed as command lines."""
    name = _basename(words[0])
    if name in SHELLS:
        for index, word in enumerate(words[1:-1], start=1):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                _collect(words[index + 1], found, depth + 1)
                break
    elif name == "eval" and len(words) > 1:
        _collect(" ".join(words[1:]), found, depth + 1)


def _word_runs(text: str) -> list[tuple[str, ...]]:
    """Unparsable text, split at blanks and shell operators: each word starts a run."""
    words = [w for w in _WORD_SPLIT.split(text) if w]
    return [tuple(words[i : i + MAX_PREFIX]) for i in range(len(words))]


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def starts_with(words: tuple[str, ...], prefix: tuple[str, ...], *, by_name: bool) -> bool:
    """Whether ``words`` begin with ``prefix``; ``by_name`` also lets the first word be
    a path to the program the prefix names (``/bin/rm`` for ``rm``: reject rules only)."""
    if len(words) < len(prefix) or not prefix:
        return False
    first = words[0] == prefix[0] or (by_name and _basename(words[0]) == prefix[0])
    return first and words[1 : len(prefix)] == prefix[1:]
