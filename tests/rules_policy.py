"""A policy with ``[[auto]]`` rules and a real approver key, for the rules' tests."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from signed_policy import key_line

RULES = """
[[auto]]
name = "read-only git"
decide = "approve"
tool = "Bash"
argv = ["git", "status"]

[[auto]]
name = "no rm"
decide = "reject"
tool = "Bash"
argv = ["rm"]

[[auto]]
name = "draft plans"
decide = "approve"
phase = "plan"
[auto.args]
kind = "draft*"
"""


class RulesPolicy(NamedTuple):
    policy: Path
    alice: Path
    bob: Path


def rules_policy(folder: Path, *, required: int = 1, rules: str = RULES) -> RulesPolicy:
    """``folder/policy.toml``: alice (and bob) approve tool calls and plans, rules may
    count as one approval (``auto = true``), with ``rules`` as its ``[[auto]]`` tables."""
    folder.mkdir(parents=True, exist_ok=True)
    alice, bob = folder / "alice", folder / "bob"
    (folder / "allowed_signers").write_text(
        f'alice namespaces="handoff-gate" {key_line(alice)}\n'
        f'bob namespaces="handoff-gate" {key_line(bob)}\n'
    )
    tables = "".join(
        f'[[rule]]\nphase = "{phase}"\napprovers = ["alice", "bob"]\n'
        f"required = {required}\nauto = true\n\n"
        for phase in ("tool-call", "plan")
    )
    policy = folder / "policy.toml"
    policy.write_text(f'allowed_signers = "allowed_signers"\n\n{tables}{rules}')
    return RulesPolicy(policy, alice, bob)
