"""The policy file is refused on any doubt, picks the first matching rule, and pins its keys."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from trust_helpers import Keys

from handoff_gate.gates.trust.policy import Policy, PolicyError, Rule, policy_digest

GOOD = """\
allowed_signers = "keys/allowed_signers"

[[rule]]
phase = "plan"
approvers = ["alice", "bob"]
required = 2
producers = ["planner"]

[[rule]]
phase = "*"
approvers = ["alice"]
"""


@pytest.fixture
def folder(keys: Keys, tmp_path: Path) -> Path:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "allowed_signers").write_text(
        f"alice,bob {keys.public(keys.alice)}\nplanner {keys.public(keys.mallory)}\n"
    )
    (tmp_path / "policy.toml").write_text(GOOD)
    return tmp_path


def test_a_good_policy_loads(folder: Path) -> None:
    policy = Policy.load(folder / "policy.toml")
    assert policy.rules == (
        Rule("plan", ("alice", "bob"), 2, ("planner",)),
        Rule("*", ("alice",), 1, None),
    )
    assert policy.signers_path == folder / "keys" / "allowed_signers"
    assert [e.line for e in policy.signers.entries] == [1, 2]


def test_the_first_matching_rule_applies(folder: Path) -> None:
    policy = Policy.load(folder / "policy.toml")
    assert policy.rule_for("plan") is policy.rules[0]
    assert policy.rule_for("research") is policy.rules[1]


def test_no_rule_covers_a_phase_without_a_wildcard(folder: Path) -> None:
    (folder / "policy.toml").write_text(GOOD.split('[[rule]]\nphase = "*"')[0])
    policy = Policy.load(folder / "policy.toml")
    assert policy.rule_for("plan") is policy.rules[0]
    assert policy.rule_for("research") is None


RULE = '[[rule]]\nphase = "plan"\napprovers = ["alice"]\n'


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ('allowed_signers = "keys/allowed_signers"\nextra = 1\n' + RULE, "extra", "unknown key"),
        ("allowed_signers = 3\n" + RULE, "allowed_signers", "must be a path"),
        (RULE, "allowed_signers", "must be a path"),
        ('allowed_signers = "keys/allowed_signers"\n', "rule", "at least one"),
        ('allowed_signers = "keys/allowed_signers"\nrule = 1\n', "rule", "at least one"),
        (RULE + "colour = 'red'\n", "rule[0].colour", "unknown key"),
        (RULE.replace('"plan"', '"Plan"'), "rule[0].phase", "phase name"),
        (RULE.replace('"plan"', '"-plan"'), "rule[0].phase", "phase name"),
        (RULE.replace('"plan"', '"' + "p" * 41 + '"'), "rule[0].phase", "phase name"),
        (RULE.replace('"plan"', "1"), "rule[0].phase", "phase name"),
        ('[[rule]]\napprovers = ["alice"]\n', "rule[0].phase", "phase name"),
        (RULE.replace('["alice"]', "[]"), "rule[0].approvers", "non-empty list"),
        (RULE.replace('["alice"]', '"alice"'), "rule[0].approvers", "non-empty list"),
        (RULE.replace('["alice"]', "[1]"), "rule[0].approvers", "'1' is not a principal"),
        (RULE.replace('["alice"]', '["a b"]'), "rule[0].approvers", "not a principal"),
        (RULE.replace('["alice"]', '["al*"]'), "rule[0].approvers", "not a principal"),
        (RULE.replace('["alice"]', '["alice", "alice"]'), "rule[0].approvers", "listed twice"),
        (RULE.replace('["alice"]', '["carol"]'), "rule[0].approvers", "'carol' matches no line"),
        (RULE + "required = 0\n", "rule[0].required", "from 1 to 1"),
        (RULE + "required = 2\n", "rule[0].required", "from 1 to 1"),
        (RULE + "required = true\n", "rule[0].required", "from 1 to 1"),
        (RULE + "required = 1.0\n", "rule[0].required", "from 1 to 1"),
        (RULE + "producers = []\n", "rule[0].producers", "non-empty list"),
        (RULE + 'producers = ["nobody"]\n', "rule[0].producers", "matches no line"),
        (RULE + RULE, "rule[1].phase", "unreachable"),
        (RULE.replace('"plan"', '"*"') + RULE, "rule[1].phase", "unreachable"),
    ],
)
def test_each_validation_error_names_file_and_field(
    folder: Path, text: str, field: str, problem: str
) -> None:
    if not text.startswith("allowed_signers") and "allowed_signers" not in field:
        text = 'allowed_signers = "keys/allowed_signers"\n' + text
    path = folder / "policy.toml"
    path.write_text(text)
    with pytest.raises(PolicyError) as caught:
        Policy.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {field}: "), message
    assert problem in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("allowed_signers = [", "not valid TOML"),
        ('allowed_signers = "missing"\n' + RULE, "missing: No such file"),
    ],
)
def test_unreadable_policies(folder: Path, text: str, problem: str) -> None:
    path = folder / "policy.toml"
    path.write_text(text)
    with pytest.raises(PolicyError, match=problem) as caught:
        Policy.load(path)
    assert "\n" not in str(caught.value)


def test_a_malformed_allowed_signers_is_a_policy_error_with_its_line(folder: Path) -> None:
    signers = folder / "keys" / "allowed_signers"
    signers.write_text(signers.read_text() + "carol cert-authority ssh-ed25519 AAAA\n")
    with pytest.raises(PolicyError, match=rf"^{signers}: line 3: cert-authority"):
        Policy.load(folder / "policy.toml")


def test_missing_policy_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="No such file"):
        Policy.load(tmp_path / "policy.toml")


def test_the_digest_pins_both_files(folder: Path, keys: Keys) -> None:
    path = folder / "policy.toml"
    signers = folder / "keys" / "allowed_signers"
    first = Policy.load(path).digest
    assert first == policy_digest(path.read_bytes(), signers.read_bytes())
    path.write_text(GOOD + "\n")
    second = Policy.load(path).digest
    assert second != first
    signers.write_text(signers.read_text() + f"bob {keys.public(keys.bob)}\n")
    third = Policy.load(path).digest
    assert len({first, second, third}) == 3


def test_the_digest_is_the_documented_shell_construction(folder: Path) -> None:
    script = (
        "printf 'handoff-gate-policy/1\\n%s\\n%s\\n' \"$(sha256sum < policy.toml | cut -c1-64)\" "
        '"$(sha256sum < keys/allowed_signers | cut -c1-64)" | sha256sum | cut -c1-64'
    )
    done = subprocess.run(["sh", "-c", script], cwd=folder, capture_output=True, check=True)
    assert done.stdout.decode().strip() == Policy.load(folder / "policy.toml").digest


def test_the_digest_frames_its_inputs() -> None:
    assert policy_digest(b"ab", b"c") != policy_digest(b"a", b"bc")
