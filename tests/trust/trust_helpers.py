"""Shared by the trust tests: the key set and ssh-keygen as the reference implementation."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

PASSPHRASE = "correct horse"


@dataclass(frozen=True)
class Keys:
    folder: Path
    alice: Path
    bob: Path
    mallory: Path
    locked: Path

    def public(self, key: Path) -> str:
        """The ``type base64`` fields of the key's .pub file, as ssh-keygen wrote it."""
        return " ".join(key.with_suffix(".pub").read_text().split()[:2])


def make_key(path: Path, passphrase: str = "", key_type: str = "ed25519") -> Path:
    extra = ["-b", "1024"] if key_type == "rsa" else []
    subprocess.run(
        ["ssh-keygen", "-q", "-t", key_type, *extra, "-N", passphrase, "-C", path.name, "-f", path],
        check=True,
    )
    return path


def ssh_keygen_verify(
    signers: Path,
    principal: str,
    message: bytes,
    signature: str,
    folder: Path,
    namespace: str = "handoff-gate",
) -> subprocess.CompletedProcess[bytes]:
    """``ssh-keygen -Y verify`` over the message, the reference our verifier must agree with."""
    sig = folder / "message.sig"
    sig.write_text(signature)
    command = ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace]
    return subprocess.run(
        [*command, "-s", str(sig)], input=message, capture_output=True, check=False
    )


def ssh_keygen_sign(
    key: Path, message: bytes, namespace: str = "handoff-gate", *options: str
) -> str:
    command = ["ssh-keygen", "-q", "-Y", "sign", "-n", namespace, "-f", str(key)]
    for option in options:
        command += ["-O", option]
    done = subprocess.run(command, input=message, capture_output=True, check=True)
    return done.stdout.decode()
