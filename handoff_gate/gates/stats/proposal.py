"""A rule from a decision: the ``[[auto]]`` table that would approve calls like an
approved one, and the proposals file a person copies it from into the policy.

The rule says no more than the call did: its tool (globs escaped), its agent, and the
``command``'s words as the shell would run them. A call without one simple command makes
no rule: a rule on the tool alone would approve every call of it. It is never written
into the policy, which is pinned and changed by a person (docs/security.md).
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.rules.auto import (
    MAX_GLOB,
    MAX_NAME,
    MAX_WORDS,
    TOOL_CALL_PHASE,
    AutoRule,
)
from handoff_gate.gates.rules.judge import COMMAND, matches, subject_of
from handoff_gate.gates.rules.shell import simple_command
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.safe_text import has_unsafe

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.envelope import Envelope

#: The proposals file's name beside the runs, when no policy is in force.
NO_POLICY_NAME = "policy.proposals.toml"


class NoProposal(ValueError):
    """Why no rule can be proposed (or written) for this call: one line for a person."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """The rule proposed, the file it would be appended to, the policy as it would be
    with it (``None``: there is none, and the rule is judged alone), and what else that
    policy needs for the rule to count ("": nothing)."""

    rule: AutoRule
    path: Path
    policy: Policy | None = None
    also: str = ""


def rule_like(envelope: Envelope) -> AutoRule:
    """The approve rule for calls like the one ``envelope`` carries; ``NoProposal``
    saying why when no such rule can be made."""
    tool = envelope.tool
    if envelope.kind != "tool_call" or tool is None:
        raise NoProposal("a rule from a decision is made from a tool call; this is a handoff")
    try:
        subject = subject_of(envelope)
    except ValueError as exc:
        raise NoProposal(
            f"its arguments cannot be read ({exc}), so no rule can name them"
        ) from None
    command = subject.args.get(COMMAND)
    if not isinstance(command, str):
        raise NoProposal(
            "it has no shell command: a rule on the tool alone would approve every call of it"
        )
    words = simple_command(command)
    if words is None:
        raise NoProposal(
            "its command is not one simple command (an operator, a redirection, a "
            "substitution, an expansion or something the parser cannot read): no rule may "
            "approve commands like it, a person decides each"
        )
    if len(words) > MAX_WORDS or any(len(w) > MAX_GLOB for w in words):
        raise NoProposal(f"its command has more than {MAX_WORDS} words or a word too long")
    for what, text in (("tool", tool.name), ("agent", tool.agent)):
        if text is not None and (
            has_unsafe(text) or text != text.strip() or len(glob.escape(text)) > MAX_GLOB
        ):
            raise NoProposal(f"its {what} name cannot be written in a rule as it is")
    rule = AutoRule(
        name=_name(tool.name, words),
        decide=Action.APPROVE,
        tool=glob.escape(tool.name),
        agent=glob.escape(tool.agent) if tool.agent is not None else None,
        argv=words,
    )
    if not matches(rule, subject):  # the rule must at least cover its own call
        raise NoProposal("the rule made from it would not match it; nothing is proposed")
    return rule


def as_added(policy: Policy | None, rule: AutoRule) -> tuple[Policy | None, str]:
    """``policy`` as it would be with ``rule`` added, and what else a person must change
    for the rule to count ("": nothing), such as ``auto = true`` or a policy at all."""
    if policy is None:
        needed = f"a policy must hold it, its [[rule]] for {TOOL_CALL_PHASE!r} saying auto = true"
        return None, needed + " (there is no policy yet)"
    covering = policy.rule_for(TOOL_CALL_PHASE)
    if covering is None:
        needed = f"a [[rule]] for {TOOL_CALL_PHASE!r} saying auto = true must be added"
        return policy, needed + " (none covers it)"
    added = replace(policy, auto=(*policy.auto, rule))
    if covering.auto:
        return added, ""
    counted = tuple(replace(r, auto=True) if r is covering else r for r in policy.rules)
    needed = f"the [[rule]] for {covering.phase!r} must also say auto = true"
    return replace(added, rules=counted), needed


def _name(tool: str, words: tuple[str, ...]) -> str:
    """``Bash git status``: the tool and the words, cut to a rule name's length."""
    name = " ".join((tool, *words))
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1].rstrip() + "…"


def proposals_path(policy: Policy | None, runs: Path | None) -> Path:
    """Where proposals go: beside the policy file, else in ``runs`` (the folder the
    runs are in); ``NoProposal`` with neither."""
    if policy is not None:
        return policy.path.with_name(f"{policy.path.stem}.proposals.toml")
    if runs is None:
        raise NoProposal(
            "no policy file and no folder of runs to put the proposal beside: start the "
            "review with --policy"
        )
    return runs / NO_POLICY_NAME


def append_proposal(path: Path, rule: AutoRule, note: str, policy: Policy | None) -> None:
    """Append ``rule``'s table to ``path``, under ``note`` as a comment (``NoProposal``
    if the file is the policy's own or a link; ``OSError`` when it cannot be written)."""
    protected = [policy.path, policy.signers_path] if policy is not None else []
    for other in protected:
        if path == other or (path.exists() and other.exists() and path.samefile(other)):
            raise NoProposal(f"{path} is the policy's own file: a proposal never edits it")
    comment = "".join(f"# {_comment(line)}\n" for line in note.splitlines())
    text = comment + rule.to_toml()
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if path.is_symlink():
            raise NoProposal(
                f"{path} is a symbolic link: a proposal is never written through one"
            ) from None
        raise exc
    try:
        if os.fstat(fd).st_size:
            text = "\n" + text
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _comment(text: str) -> str:
    """One comment line of printable ASCII: everything else escaped as JSON escapes it,
    so a run or reviewer name can neither end the comment nor hide a character."""
    return json.dumps(text, ensure_ascii=True)[1:-1]
