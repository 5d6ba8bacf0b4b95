"""A tool call that opens an interactive session: approving it approves input nobody sees.

Codex CLI's ``exec_command`` keeps a command's stdin open when it runs with a terminal,
and the model then types into it with ``write_stdin``, which no hook is asked about:
approving ``bash`` there approves every command typed into it afterwards (issue 40). So
a tool whose stored contract carries :data:`SESSION_KEY` gets a blocking finding when
its call asks for a terminal or its command starts a shell, a REPL, a remote or
container session, an editor or pager, or reads the terminal.

This is a list of known programs, not a proof: the reviewer is told, in the docs and in
Codex's contract, that a command's later input is never reviewed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from handoff_gate.gates.vocab.findings import Code, Finding, Severity

#: The contract annotation: ``{"command": KEY, "tty": KEY, "input_tool": NAME}``, the
#: argument holding the command (a string, or a program and its arguments), the one
#: asking for a terminal, and the tool that types into the session afterwards.
SESSION_KEY = "x-handoff-gate-session"

#: Interactive with no script or command argument (``bash``; not ``bash run.sh``).
_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "nu", "xonsh"}
    | {"pwsh", "powershell", "cmd", "elvish", "oil", "osh", "ysh", "busybox"}
)
_REPLS = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "ipython", "bpython", "ptpython"}
    | {"node", "nodejs", "deno", "bun", "irb", "ruby", "pry", "perl", "php", "lua", "luajit"}
    | {"ghci", "R", "julia", "scala", "clojure", "clj", "erl", "iex", "elixir", "ocaml", "utop"}
    | {"racket", "guile", "sbcl", "clisp", "swipl", "gp", "bc", "dc", "octave", "matlab"}
    | {"gdb", "lldb", "pdb", "jshell", "kotlinc"}
)
#: Database clients: interactive unless given a statement or a file to run.
_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "sqlite3", "redis-cli", "mongo", "mongosh", "sqlplus"}
    | {"cqlsh", "clickhouse-client", "duckdb", "usql", "pgcli", "mycli", "litecli"}
)
_CLIENT_RUNS = frozenset({"-c", "-f", "--command", "--file", "-e", "--execute", "--eval", "-cmd"})
#: Interactive whatever their arguments: sessions, multiplexers, editors, pagers.
_ALWAYS = frozenset(
    {"telnet", "ftp", "sftp", "lftp", "screen", "tmux", "zellij", "byobu", "login"}
    | {"vi", "vim", "nvim", "view", "nano", "pico", "emacs", "ed", "ex", "micro", "joe", "mcedit"}
    | {"less", "more", "most", "man", "top", "htop", "btop", "mc", "ranger", "nnn", "tig"}
    | {"script", "expect", "minicom", "picocom", "cu", "nc", "ncat", "netcat", "socat"}
    | {"watch", "dialog", "whiptail", "fzf", "passwd", "visudo", "vipw", "crontab"}
)
#: Read the terminal when given no file: what is typed goes where they write.
_STDIN_READERS = frozenset({"cat", "tee", "dd", "read", "xargs", "sponge"})
#: Words that run the next word as the program.
_WRAPPERS = frozenset(
    {"sudo", "doas", "env", "exec", "nohup", "time", "command", "nice", "ionice", "stdbuf"}
    | {"timeout", "setsid", "chroot", "unbuffer", "builtin", "then", "do", "else", "!"}
)
_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ";;", "(", ")", "\n", "|&"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: Flags of a shell or REPL that give it a script to run, so no session stays open.
_RUNS_GIVEN = frozenset({"-c", "-e", "-m", "-E", "--command", "--eval", "-r", "--run", "-x"})


def session_findings(args: object, schema: Mapping[str, Any]) -> list[Finding]:
    spec = schema.get(SESSION_KEY)
    if spec is None:  # most tools: answered before the slower checks of ABC types
        return []
    if not isinstance(spec, Mapping) or not isinstance(args, Mapping):
        return []
    typed_by = spec.get("input_tool")
    later = f" ({typed_by})" if isinstance(typed_by, str) and typed_by else ""
    tail = (
        f"whatever is typed into it later{later} reaches it with no review, and only this "
        "command is reviewed here; approve a command that runs to its end instead"
    )
    tty_key = spec.get("tty")
    if isinstance(tty_key, str) and args.get(tty_key) is True:
        message = f"{tty_key}: true gives the command a terminal that stays open: {tail}"
        return [Finding(Code.INTERACTIVE_SESSION, tty_key, Severity.BLOCK, message)]
    command_key = spec.get("command")
    if not isinstance(command_key, str):
        return []
    why = opens_session(args.get(command_key))
    if why is None:
        return []
    message = f"{why}, an interactive session: {tail}"
    return [Finding(Code.INTERACTIVE_SESSION, command_key, Severity.BLOCK, message)]


def opens_session(command: object) -> str | None:
    """Why ``command`` (a command line, or a program and its arguments) opens an
    interactive session, or ``None``."""
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        return _simple(list(command), piped=False)
    if not isinstance(command, str):
        return None
    for words, piped in _segments(command):
        why = _simple(words, piped)
        if why is not None:
            return why
    return None


def _segments(command: str) -> list[tuple[list[str], bool]]:
    """Each simple command, and whether its stdin is a pipe or a file; a line ``shlex``
    cannot split (an unbalanced quote, which a heredoc can hold) is split on whitespace."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: read it on whitespace rather than not at all
        tokens = command.replace(";", " ; ").replace("|", " | ").replace("&", " & ").split()
    found: list[tuple[list[str], bool]] = []
    words: list[str] = []
    piped = fed = target = False
    for token in tokens:
        if target:  # a redirection's file: not an operand of the program
            target = False
        elif token in _OPERATORS or set(token) <= set(";&|()"):
            if words:
                found.append((words, piped or fed))
            words, fed = [], False
            piped = token in ("|", "|&")
        elif set(token) <= set("<>&"):
            fed = fed or token.startswith("<")  # stdin from a file or a here-document
            target = True
            if words and words[-1].isdigit():
                words.pop()  # the descriptor of ``2>``
        else:
            words.append(token)
    if words:
        found.append((words, piped or fed))
    return found


def _simple(words: list[str], piped: bool) -> str | None:
    words = _program_and_args(words)
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    shown = f"`{program}`"
    operands = [a for a in args if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    if program in _ALWAYS:
        return f"{shown} is interactive"
    if program == "ssh":
        if len(operands) >= 2 and not flags & {"-t", "-tt"}:
            return None  # a host and a remote command, without a terminal: it runs and ends
        return f"{shown} opens a remote shell"
    if program in ("docker", "podman", "kubectl", "oc", "nerdctl"):
        short = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
        if flags & {"--interactive", "--tty"} or ("i" in short and "t" in short):
            return f"{shown} with a terminal opens a session in a container"
        return None
    if program in ("sudo", "doas"):  # only given back for -i or -s
        return f"{shown} {args[0] if args else ''} opens a root shell".replace("  ", " ")
    if program == "su":
        return None if flags & {"-c", "--command"} else f"{shown} opens another user's shell"
    if piped:
        return None  # its input is a pipe or a file, not the terminal
    if program in _CLIENTS:
        if flags & _CLIENT_RUNS or (program in ("sqlite3", "duckdb") and len(operands) >= 2):
            return None
        if program == "redis-cli" and operands:  # a command given on the line
            return None
        return f"{shown} without a statement to run opens a client session"
    if program in _SHELLS or _is_repl(program):
        if {"-i", "--interactive"} & flags:
            return f"{shown} -i stays interactive"
        if flags & _RUNS_GIVEN or operands:
            return None
        kind = "a shell" if program in _SHELLS else "a REPL"
        return f"{shown} with no script starts {kind}"
    if program == "cat" and not operands:
        return f"{shown} with no file reads what is typed at the terminal"
    if program in _STDIN_READERS and program != "cat":
        if program == "dd" and any(a.startswith("if=") for a in args):
            return None
        return f"{shown} reads what is typed at the terminal"
    return None


def _program_and_args(words: list[str]) -> list[str]:
    """Assignments and wrappers (``sudo``, ``env``, ``timeout 5``) and their flags skipped."""
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if _ASSIGNMENT.match(word):
            i += 1
        elif name in _WRAPPERS:
            if name in ("sudo", "doas") and any(w in ("-i", "-s") for w in words[i + 1 : i + 3]):
                return ["sudo", "-i"]  # a root login shell
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            if name == "timeout" and i < len(words):
                i += 1  # its duration
        else:
            return words[i:]
    return []


def _is_repl(program: str) -> bool:
    versioned = re.fullmatch(r"python\d+(\.\d+)*|pypy\d*|node\d*", program)
    return program in _REPLS or versioned is not None
