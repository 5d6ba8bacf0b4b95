"""An approve rule's command reading: what must never count as one simple command,
and what a reject rule must find inside a command however it is wrapped."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff_gate.gates.rules.auto import MAX_WORDS, AutoRule
from handoff_gate.gates.rules.judge import Subject, rule_for
from handoff_gate.gates.rules.shell import (
    MAX_COMMAND,
    MAX_PREFIX,
    MAX_SCAN,
    commands_inside,
    simple_command,
)
from handoff_gate.gates.vocab.actions import Action

GIT_STATUS = AutoRule(
    name="read-only git", decide=Action.APPROVE, tool="Bash", argv=("git", "status")
)
ANY_BASH = AutoRule(name="any bash", decide=Action.APPROVE, tool="Bash")
NO_RM = AutoRule(name="no rm", decide=Action.REJECT, tool="Bash", argv=("rm",))


def bash(command: object) -> Subject:
    return Subject("tool_call", "tool-call", "Bash", "claude-code", {"command": command})


#: Commands that start with `git status` to a text matcher but that no approve rule may
#: ever match: each does something besides running `git status …`, or hides what it is.
NEVER_APPROVED = [
    "git status; rm -rf ~",
    "git status;rm -rf ~",
    "git status && rm -rf ~",
    "git status || rm -rf ~",
    "git status | sh",
    "git status & rm -rf ~",
    "git status &",
    "git status > ~/.bashrc",
    "git status >> ~/.bashrc",
    "git status 2>/dev/null",
    "git status < /etc/passwd",
    "git status <<EOF\nrm -rf ~\nEOF",
    "git status <<< x",
    "git status $(rm x)",
    "git status `rm x`",
    "git status <(rm x)",
    "git status >(rm x)",
    "git status ${HOME}",
    "git status $HOME",
    'git status "$(rm x)"',
    'git status "`rm x`"',
    "git status $((1+1))",
    "git status\nrm -rf ~",
    "git status\rrm -rf ~",
    "git status\\\nrm -rf ~",
    "git\tstatus",
    "git status\x00rm",
    "git status \x1b[2K",
    "git status\u2028rm",
    "git status \u202erm",
    "git status\u00a0x",
    "gіt status",  # Cyrillic і
    "git ѕtatus",  # Cyrillic ѕ
    "git status ；rm -rf ~",  # fullwidth semicolon
    'git "status" && rm',
    "(git status)",
    "{ git status; }",
    "git status # && rm",
    "X=1 git status",
    "GIT_DIR=/tmp/evil git status",
    "env X=1 git status",
    "command git status",
    "sudo git status",
    "xargs git status",
    "bash -c 'git status'",
    "sh -c 'git status; rm -rf ~'",
    "eval git status",
    "exec git status",
    "alias git='rm -rf ~'; git status",
    "alias git='rm -rf ~' && git status",
    "git() { rm -rf ~; }; git status",
    "./git status",
    "/tmp/git status",
    "git status *",
    "git status ~",
    "git status {a,b}",
    "git status !!",
    "git status 'unterminated",
    'git status "unterminated',
    "git status )",
    "if git status; then rm x; fi",
    "! git status",
    "git status " + "x" * MAX_COMMAND,
    "",
    "   ",
]


@pytest.mark.parametrize("command", NEVER_APPROVED)
def test_never_one_simple_command(command: str) -> None:
    words = simple_command(command)
    assert words is None or words[:2] != ("git", "status"), words
    assert rule_for([GIT_STATUS], bash(command)) is None


@pytest.mark.parametrize("command", [c for c in NEVER_APPROVED if simple_command(c) is None])
def test_a_rule_without_argv_approves_no_compound_command(command: str) -> None:
    assert rule_for([ANY_BASH], bash(command)) is None


def test_quoting_and_escaping_that_git_status_itself_reads() -> None:
    assert simple_command("git status") == ("git", "status")
    assert simple_command("git 'status'") == ("git", "status")
    assert simple_command('git "status" --short') == ("git", "status", "--short")
    assert simple_command("git stat'u's") == ("git", "status")
    assert simple_command(r"g\it status") == ("git", "status")
    assert simple_command('git commit -m "fix: a b"') == ("git", "commit", "-m", "fix: a b")
    # An escaped operator is a character of a word, never an operator: not `status`.
    assert simple_command(r"git status\;rm") == ("git", "status;rm")
    assert rule_for([GIT_STATUS], bash(r"git status\;rm")) is None
    assert rule_for([GIT_STATUS], bash("git status --short")) is GIT_STATUS


def test_approve_needs_a_string_command() -> None:
    assert rule_for([GIT_STATUS], bash(["git", "status"])) is None
    assert rule_for([ANY_BASH], bash(None)) is None


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ~",
        "/bin/rm -rf ~",
        "git status; rm -rf ~",
        "git status && rm x",
        "ls | xargs rm",
        "ls | xargs -n 1 rm",
        "env X=1 rm x",
        "env -i PATH=/bin rm x",
        "command rm x",
        "sudo rm x",
        "sudo -u root rm x",
        "nice -n 5 nohup rm x",
        "timeout 5 rm x",
        "find . -name '*.py' -exec rm {} \\;",
        "bash -c 'rm x'",
        'sh -c "ls; rm x"',
        "bash -lc 'rm x'",
        "eval rm x",
        "eval 'rm x'",
        "echo $(rm x)",
        "echo `rm x`",
        "(cd /; rm x)",
        "cat <(rm x)",
        "sudo bash -c 'eval \"rm x\"'",
        "if true; then rm x; fi",
        "git status\nrm x",
        "rm x 'unterminated",
        "echo ${x:-$(rm x)}",
        "r\\\nm x",
        "'r'm x",
        '"r"m x',
        "\\rm x",
        "$'rm' x",
        "$'\\x72m' x",
        "env -S 'rm x'",
        "watch -n 1 'rm x'",
    ],
)
def test_reject_rule_finds_every_command_inside(command: str) -> None:
    assert rule_for([GIT_STATUS, NO_RM], bash(command)) is NO_RM


def test_reject_wins_over_approve() -> None:
    broad = AutoRule(name="no git push", decide=Action.REJECT, tool="Bash", argv=("git",))
    assert rule_for([GIT_STATUS, broad], bash("git status")) is broad


def test_a_program_named_by_an_expansion_goes_to_a_person() -> None:
    for command in ("$X -rf ~", "$(echo rm) x", "/bin/r? x", "{rm,x} y"):
        assert rule_for([ANY_BASH, GIT_STATUS, NO_RM], bash(command)) is None, command


def test_reject_rule_spares_a_word_that_only_mentions_the_program() -> None:
    assert rule_for([NO_RM], bash("git commit -m 'rm x'")) is None
    assert rule_for([NO_RM], bash("ls -l")) is None


def test_unparsable_text_matches_a_reject_rule_by_its_words() -> None:
    inside = commands_inside("ls ( rm x")
    assert ("rm", "x") in inside


def test_deeply_nested_shells_stay_bounded() -> None:
    command = "rm x"
    for _ in range(5):
        command = f"bash -c {shlex.quote(command)}"
    assert rule_for([NO_RM], bash(command)) is NO_RM
    assert rule_for([NO_RM], bash("eval " * 40 + "rm x")) is NO_RM
    long = "sudo " * 2000 + "rm x"
    assert ("rm", "x") in commands_inside(long)
    assert MAX_WORDS <= MAX_PREFIX  # every word a rule can name is kept
    words = " ".join(["a"] * 30_000)
    assert rule_for([NO_RM], bash(f"( {words} ; rm x")) is NO_RM  # unparsable, 30k words
    huge = "a " * MAX_SCAN
    assert rule_for([NO_RM], bash(huge)) is NO_RM  # too long to read: rejected unread
    assert rule_for([ANY_BASH], bash(huge)) is None


#: Pieces of shell text: plain and quoted words, escapes, and the shell's operators,
#: expansions and specials, put together with and without blanks between them.
_PIECES = [
    "a", "b", "1", "-a", "--b=1", "a.b", "./a", "a/b", "a=b", "'a b'", '"a b"', '"a\\"b"',
    "a\\ b", "a\\;b", "a'b'", 'a"b"1', "'$a'", '"$a"', "\\$a", "'", '"', "\\", "$a",
    "${a}", "$(a)", "`a`", ";", "&&", "||", "|", "&", ">", "<", "2>", "*", "?", "~", "{a,b}",
    "#", "!", "(", ")", "\n", "\t", "$'a'", '"\\\\$a"', "\\\\", '"\\\\"', "a\\\n",
]  # fmt: skip
#: Mostly words (so that many texts are one command and reach bash), some of the rest.
_PIECE = st.one_of(
    st.sampled_from(_PIECES[:18]), st.sampled_from(_PIECES[:18]), st.sampled_from(_PIECES)
)
_TEXT = st.lists(st.tuples(_PIECE, st.sampled_from(["", " ", " "])), max_size=8).map(
    lambda parts: "".join(piece + gap for piece, gap in parts)
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXT)
def test_the_words_of_a_simple_command_are_the_words_bash_runs(text: str) -> None:
    """bash itself is the oracle: whenever ``simple_command`` returns words, bash running
    ``printf '%s\\0'`` in front of the same text prints exactly those words. (Only text
    read as one plain command reaches bash, made of the letters a, b and 1: no program
    on this machine is named so, so nothing but printf runs, even if the parser were
    wrong.)"""
    words = simple_command(text)
    if words is None:
        return
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "printf '%s\\0' " + text],
        capture_output=True, env={"PATH": "/usr/bin:/bin"}, timeout=10, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert tuple(done.stdout.decode().split("\0")[:-1]) == words
