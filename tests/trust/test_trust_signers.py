"""allowed_signers says who may sign as whom; wherever ssh-keygen has a verdict we agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from trust_helpers import Keys, ssh_keygen_verify

from handoff_gate.gates.trust.ed25519 import sign
from handoff_gate.gates.trust.signers import AllowedSigners, AllowedSignersError, UntrustedSigner
from handoff_gate.gates.trust.sshsig import SignatureError

MESSAGE = b"approve 0001-plan"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "allowed_signers"
    path.write_text(text)
    return path


def agree(
    tmp_path: Path, signers_text: str, key: Path, principal: str, namespace: str = "handoff-gate"
) -> bool:
    """Our verdict and ssh-keygen's on the same file, signature and principal (True = accepted)."""
    path = write(tmp_path, signers_text)
    signature = sign(MESSAGE, key, namespace=namespace)
    theirs = ssh_keygen_verify(path, principal, MESSAGE, signature, tmp_path, namespace)
    try:
        AllowedSigners.load(path).verify(MESSAGE, signature, principal, namespace)
        ours = True
    except UntrustedSigner:
        ours = False
    assert ours == (theirs.returncode == 0), theirs.stderr
    return ours


def test_a_listed_key_verifies_for_its_principal(keys: Keys, tmp_path: Path) -> None:
    text = f"# reviewers\n\nalice {keys.public(keys.alice)} laptop\nbob {keys.public(keys.bob)}\n"
    assert agree(tmp_path, text, keys.alice, "alice")
    signers = AllowedSigners.load(write(tmp_path, text))
    signature = sign(MESSAGE, keys.alice)
    assert signers.verify(MESSAGE, signature, "alice") == keys.public(keys.alice)
    assert signers.principals_for(keys.public(keys.alice)) == ["alice"]
    assert [e.line for e in signers.entries] == [3, 4]


def test_another_key_claiming_the_principal_is_refused(keys: Keys, tmp_path: Path) -> None:
    text = f"alice {keys.public(keys.alice)}\nbob {keys.public(keys.bob)}\n"
    assert not agree(tmp_path, text, keys.bob, "alice")
    signers = AllowedSigners.load(write(tmp_path, text))
    with pytest.raises(UntrustedSigner, match="is not listed for principal 'alice'"):
        signers.verify(MESSAGE, sign(MESSAGE, keys.bob), "alice")


def test_a_key_outside_the_file_is_refused(keys: Keys, tmp_path: Path) -> None:
    text = f"alice {keys.public(keys.alice)}\n"
    assert not agree(tmp_path, text, keys.mallory, "alice")
    signers = AllowedSigners.load(write(tmp_path, text))
    assert signers.principals_for(keys.public(keys.mallory)) == []


def test_a_bad_signature_is_a_signature_error_not_untrusted(keys: Keys, tmp_path: Path) -> None:
    signers = AllowedSigners.load(write(tmp_path, f"alice {keys.public(keys.alice)}\n"))
    with pytest.raises(SignatureError, match="does not match") as caught:
        signers.verify(MESSAGE + b"!", sign(MESSAGE, keys.alice), "alice")
    assert not isinstance(caught.value, UntrustedSigner)


def test_validity_window(keys: Keys, tmp_path: Path) -> None:
    key = keys.public(keys.alice)
    assert not agree(tmp_path, f'alice valid-before="20200101Z" {key}\n', keys.alice, "alice")
    assert not agree(tmp_path, f'alice valid-after="29990101" {key}\n', keys.alice, "alice")
    assert agree(
        tmp_path,
        f'alice valid-after="20200101",valid-before="29991231" {key}\n',
        keys.alice,
        "alice",
    )
    signers = AllowedSigners.parse(f'alice valid-before="20260101120000Z" {key}\n'.encode(), "f")
    edge = datetime(2026, 1, 1, 12, tzinfo=UTC)
    signature = sign(MESSAGE, keys.alice)
    assert signers.verify(MESSAGE, signature, "alice", at=edge)
    with pytest.raises(UntrustedSigner, match=r"is not valid for 'alice' .*\(line 1\)"):
        signers.verify(MESSAGE, signature, "alice", at=edge + timedelta(seconds=1))
    assert signers.principals_for(key, at=edge + timedelta(seconds=1)) == []
    with pytest.raises(ValueError, match="time zone"):
        signers.verify(MESSAGE, signature, "alice", at=datetime(2026, 1, 1))


def test_wildcard_principals(keys: Keys, tmp_path: Path) -> None:
    text = f"*@example.com,ops-? {keys.public(keys.alice)}\n"
    assert agree(tmp_path, text, keys.alice, "alice@example.com")
    assert agree(tmp_path, text, keys.alice, "ops-1")
    assert not agree(tmp_path, text, keys.alice, "alice@example.org")
    assert not agree(tmp_path, text, keys.alice, "ops-12")
    signers = AllowedSigners.load(write(tmp_path, text))
    assert signers.principals_for(keys.public(keys.alice)) == ["*@example.com", "ops-?"]
    candidates = ["ops-12", "bob@example.com", "ops-1", "alice@example.org"]
    assert signers.names_among(keys.public(keys.alice), candidates) == [
        "bob@example.com",
        "ops-1",
    ]
    assert signers.names_among(keys.public(keys.bob), candidates) == []


def test_quoted_principals_and_case_insensitive_options(keys: Keys, tmp_path: Path) -> None:
    text = f'"alice,bob" NAMESPACES="handoff-*,git" {keys.public(keys.alice)}\n'
    assert agree(tmp_path, text, keys.alice, "bob")
    assert agree(tmp_path, text, keys.alice, "alice", "git")


def test_namespaces_option(keys: Keys, tmp_path: Path) -> None:
    text = f'alice namespaces="git" {keys.public(keys.alice)}\n'
    assert not agree(tmp_path, text, keys.alice, "alice")
    signers = AllowedSigners.load(write(tmp_path, text))
    with pytest.raises(UntrustedSigner, match="may not sign namespace 'handoff-gate'"):
        signers.verify(MESSAGE, sign(MESSAGE, keys.alice), "alice")
    assert signers.names_among(keys.public(keys.alice), ["alice"]) == []
    assert signers.names_among(keys.public(keys.alice), ["alice"], namespace="git") == ["alice"]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("alice", "expected: principals"),
        ("alice ssh-ed25519", "expected: principals"),
        ("alice cert-authority {key}", "cert-authority is not supported"),
        ("alice no-touch-required {key}", "unknown option 'no-touch-required'"),
        ('alice valid-after="1" {key}', "timestamp '1' is not"),
        ('alice valid-after="20200101",valid-after="20200102" {key}', "given twice"),
        ('alice valid-after="20201301" {key}', "not a real date"),
        ("alice valid-before= {key}", "needs a value in double quotes"),
        ("alice valid-before=20200101 {key}", "needs a value in double quotes"),
        ('alice namespaces="a,b {key}', "unterminated double quote"),
        ("alice,!bob {key}", "negated principal pattern"),
        ("alice,,bob {key}", "empty principal pattern"),
        ("alice ssh-ed25519 AAAA!!!!", "not valid base64"),
        ("alice ssh-ed25519 AAAAé===", "not valid base64"),
        ("alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5", "truncated"),
        ("alice ssh-rsa AAAAB3NzaC1yc2E=", "unsupported key type 'ssh-rsa'"),
        ("alice ecdsa-sha2-nistp256 AAAA", "unsupported key type"),
        ('alice namespaces="git" ssh-ed25519', "missing key type or key"),
    ],
)
def test_malformed_lines_name_their_line(keys: Keys, line: str, problem: str) -> None:
    text = f"# header\n\nbob {keys.public(keys.bob)}\n{line.format(key=keys.public(keys.alice))}\n"
    with pytest.raises(AllowedSignersError) as caught:
        AllowedSigners.parse(text.encode(), "signers")
    message = str(caught.value)
    assert message.startswith("signers: line 4: "), message
    assert problem in message
    assert "\n" not in message


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(AllowedSignersError, match="No such file"):
        AllowedSigners.load(tmp_path / "missing")
    with pytest.raises(AllowedSignersError, match="not UTF-8"):
        AllowedSigners.parse(b"alice \xff", "signers")
