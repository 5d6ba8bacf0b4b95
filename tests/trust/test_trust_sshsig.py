"""SSHSIG made and checked in-process must agree with ssh-keygen both ways, and refuse the rest."""

from __future__ import annotations

import base64
import stat
import subprocess
from pathlib import Path

import pytest
from trust_helpers import PASSPHRASE, Keys, make_key, ssh_keygen_sign, ssh_keygen_verify

from handoff_gate.gates.trust.ed25519 import sign, verify
from handoff_gate.gates.trust.sshsig import (
    SignatureError,
    SigningError,
    fingerprint,
    public_key_of,
)

MESSAGE = b"handoff-gate-decision/1\n{}"


def blob_of(armored: str) -> bytes:
    return base64.b64decode("".join(armored.strip().splitlines()[1:-1]))


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + 70] for i in range(0, len(text), 70)]
    return "\n".join(["-----BEGIN SSH SIGNATURE-----", *lines, "-----END SSH SIGNATURE-----", ""])


@pytest.mark.parametrize("hash_algorithm", ["sha512", "sha256"])
def test_our_signature_is_byte_identical_to_ssh_keygen(keys: Keys, hash_algorithm: str) -> None:
    ours = sign(MESSAGE, keys.alice, hash_algorithm=hash_algorithm)
    theirs = ssh_keygen_sign(keys.alice, MESSAGE, "handoff-gate", f"hashalg={hash_algorithm}")
    assert ours == theirs


@pytest.mark.parametrize("hash_algorithm", ["sha512", "sha256"])
def test_ssh_keygen_verifies_our_signature(keys: Keys, tmp_path: Path, hash_algorithm: str) -> None:
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"alice {keys.public(keys.alice)}\n")
    signature = sign(MESSAGE, keys.alice, hash_algorithm=hash_algorithm)
    done = ssh_keygen_verify(signers, "alice", MESSAGE, signature, tmp_path)
    assert done.returncode == 0, done.stderr
    tampered = ssh_keygen_verify(signers, "alice", MESSAGE + b" ", signature, tmp_path)
    assert tampered.returncode != 0


@pytest.mark.parametrize("hash_algorithm", ["sha512", "sha256"])
def test_we_verify_ssh_keygen_signature(keys: Keys, hash_algorithm: str) -> None:
    signature = ssh_keygen_sign(keys.alice, MESSAGE, "handoff-gate", f"hashalg={hash_algorithm}")
    assert verify(MESSAGE, signature) == keys.public(keys.alice)
    assert public_key_of(keys.alice) == keys.public(keys.alice)


def test_fingerprint_matches_ssh_keygen(keys: Keys) -> None:
    listed = subprocess.run(
        ["ssh-keygen", "-lf", keys.alice.with_suffix(".pub")], capture_output=True, check=True
    )
    assert fingerprint(keys.public(keys.alice)) == listed.stdout.decode().split()[1]


def test_tampered_message_is_refused(keys: Keys) -> None:
    signature = sign(MESSAGE, keys.alice)
    with pytest.raises(SignatureError, match="does not match the message"):
        verify(MESSAGE.replace(b"{}", b"{ }"), signature)


def test_another_namespace_is_refused(keys: Keys) -> None:
    signature = ssh_keygen_sign(keys.alice, MESSAGE, "git")
    with pytest.raises(SignatureError, match="namespace 'git', not 'handoff-gate'"):
        verify(MESSAGE, signature)
    assert verify(MESSAGE, signature, namespace="git") == keys.public(keys.alice)


def test_another_key_type_is_refused(keys: Keys, tmp_path: Path) -> None:
    rsa = make_key(tmp_path / "rsa", key_type="rsa")
    signature = ssh_keygen_sign(rsa, MESSAGE)
    with pytest.raises(SignatureError, match="unsupported key type 'ssh-rsa'"):
        verify(MESSAGE, signature)
    with pytest.raises(SigningError, match="unsupported key type 'ssh-rsa'"):
        sign(MESSAGE, rsa)


def test_an_unsupported_hash_is_refused(keys: Keys) -> None:
    blob = blob_of(sign(MESSAGE, keys.alice)).replace(b"sha512", b"sha384")
    with pytest.raises(SignatureError, match="unsupported hash algorithm 'sha384'"):
        verify(MESSAGE, armor(blob))


def malformed(good: str) -> dict[str, str]:
    blob = blob_of(good)
    return {
        "empty": "",
        "no armor": base64.b64encode(blob).decode(),
        "wrong label": good.replace("SSH SIGNATURE", "PGP SIGNATURE"),
        "not base64": good.replace(good.splitlines()[1][:4], "!!!!"),
        "not ascii": good.replace(good.splitlines()[1][:4], "ééé="),
        "text after the end": good + "garbage\n",
        "text before the start": "garbage\n" + good,
        "bytes after the blob": armor(blob + b"\x00"),
        "truncated blob": armor(blob[:-10]),
        "wrong magic": armor(b"SSHSIH" + blob[6:]),
        "wrong version": armor(blob[:6] + b"\x00\x00\x00\x02" + blob[10:]),
        "huge": good * 20,
    }


@pytest.mark.parametrize(
    "case",
    [
        "empty",
        "no armor",
        "wrong label",
        "not base64",
        "not ascii",
        "text after the end",
        "text before the start",
        "bytes after the blob",
        "truncated blob",
        "wrong magic",
        "wrong version",
        "huge",
    ],
)
def test_malformed_signatures_are_one_line_errors(keys: Keys, case: str) -> None:
    with pytest.raises(SignatureError) as caught:
        verify(MESSAGE, malformed(sign(MESSAGE, keys.alice))[case])
    assert "\n" not in str(caught.value)


def test_surrounding_whitespace_is_accepted(keys: Keys) -> None:
    signature = sign(MESSAGE, keys.alice)
    assert verify(MESSAGE, "\n" + signature + "\n\n") == keys.public(keys.alice)


def test_an_encrypted_key_signs_through_ssh_keygen(
    keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    askpass = tmp_path / "askpass"
    askpass.write_text(f"#!/bin/sh\necho '{PASSPHRASE}'\n")
    askpass.chmod(askpass.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("SSH_ASKPASS", str(askpass))
    monkeypatch.setenv("SSH_ASKPASS_REQUIRE", "force")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    assert public_key_of(keys.locked) == keys.public(keys.locked)
    signature = sign(MESSAGE, keys.locked, hash_algorithm="sha256")
    assert verify(MESSAGE, signature) == keys.public(keys.locked)
    askpass.write_text("#!/bin/sh\necho wrong\n")
    with pytest.raises(SigningError, match="ssh-keygen could not sign") as caught:
        sign(MESSAGE, keys.locked)
    assert "\n" not in str(caught.value)


def test_unusable_keys_are_signing_errors(keys: Keys, tmp_path: Path) -> None:
    with pytest.raises(SigningError, match="No such file"):
        sign(MESSAGE, tmp_path / "missing")
    public = keys.alice.with_suffix(".pub")
    with pytest.raises(SigningError, match="not an OpenSSH private key"):
        sign(MESSAGE, public)
    garbled = tmp_path / "garbled"
    lines = keys.alice.read_text().splitlines()
    garbled.write_text("\n".join([lines[0], "é" * 10, *lines[2:]]))
    with pytest.raises(SigningError, match="unreadable OpenSSH private key"):
        sign(MESSAGE, garbled)
    with pytest.raises(SigningError, match="namespace must not be empty"):
        sign(MESSAGE, keys.alice, namespace="")
    with pytest.raises(SigningError, match="unsupported hash algorithm"):
        sign(MESSAGE, keys.alice, hash_algorithm="md5")
