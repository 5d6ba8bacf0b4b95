"""The ed25519 arithmetic behind SSHSIG: verifying and signing.

Why in-process: a watcher or ``wait`` verifies a decision on every look, and starting
``ssh-keygen`` for each costs milliseconds where this costs tens of microseconds. Why a
module of its own: it loads ``cryptography`` (several milliseconds at start-up), which
only a run with a policy or a signing key needs; the format is ``sshsig``.

Signing loads an unencrypted OpenSSH private key with ``cryptography``. A passphrase-protected
key is handed to ``ssh-keygen -Y sign`` instead, which uses a running ``ssh-agent`` holding
the key, or asks for the passphrase on the terminal: the passphrase never passes through here.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_ssh_private_key

from handoff_gate.gates.trust.sshsig import (
    KEY_TYPE,
    NAMESPACE,
    SignatureError,
    SigningError,
    armored_signature,
    check_signing_request,
    format_public_key,
    parse_signature,
    private_header,
    read_key,
    signed_data,
)


def verify(message: bytes, armored: str, namespace: str = NAMESPACE) -> str:
    """Check an armored SSHSIG over ``message`` and return the signer's public key
    (``SignatureError`` otherwise); whether that key may sign is ``signers``' question."""
    parsed = parse_signature(armored, namespace)
    try:
        Ed25519PublicKey.from_public_bytes(parsed.raw_key).verify(
            parsed.raw_signature, parsed.signed_data(message)
        )
    except InvalidSignature:
        raise SignatureError("signature does not match the message") from None
    return format_public_key(parsed.raw_key)


def sign(
    message: bytes,
    key_path: Path,
    namespace: str = NAMESPACE,
    hash_algorithm: str = "sha512",
    *,
    prompt: bool = True,
) -> str:
    """An armored SSHSIG over ``message`` that ``ssh-keygen -Y verify`` accepts
    (``SigningError`` otherwise)."""
    check_signing_request(namespace, hash_algorithm)
    data = read_key(key_path)
    cipher, _ = private_header(data, key_path)
    if cipher != b"none":
        return _sign_with_ssh_keygen(message, key_path, namespace, hash_algorithm, prompt)
    try:
        key = load_ssh_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise SigningError(f"{key_path}: unreadable OpenSSH private key ({error})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{key_path}: only {KEY_TYPE} keys are supported")
    signed = signed_data(namespace.encode(), b"", hash_algorithm.encode(), message)
    raw_key = key.public_key().public_bytes_raw()
    return armored_signature(raw_key, namespace, hash_algorithm, key.sign(signed))


def _sign_with_ssh_keygen(
    message: bytes, key_path: Path, namespace: str, hash_algorithm: str, prompt: bool
) -> str:
    """Sign through ``ssh-keygen`` so that an agent or the terminal supplies the passphrase.

    Without ``prompt`` it runs in a session of its own, with no terminal to ask on."""
    command = ["ssh-keygen", "-q", "-Y", "sign", "-n", namespace, "-f", str(key_path)]
    command += ["-O", f"hashalg={hash_algorithm}"]
    try:
        done = subprocess.run(
            command,
            input=message,
            capture_output=True,
            check=False,
            start_new_session=not prompt,
        )
    except OSError as error:
        raise SigningError(f"cannot run ssh-keygen for an encrypted key: {error}") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1] if lines else f"exit status {done.returncode}"
        raise SigningError(f"ssh-keygen could not sign with {key_path}: {last}")
    armored = done.stdout.decode("ascii", "replace")
    verify(message, armored, namespace)
    return armored
