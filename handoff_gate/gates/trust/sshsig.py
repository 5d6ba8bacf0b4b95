"""SSHSIG (the format of ``ssh-keygen -Y sign``) for ed25519 keys: its wire format.

Why SSHSIG: reviewers already hold OpenSSH keys, and any signature made here can be
checked with ``ssh-keygen -Y verify`` (and the other way round), so nobody has to trust
this code alone. The format is OpenSSH's PROTOCOL.sshsig. Only ``ssh-ed25519`` keys are
accepted: one key type keeps the parser small, and ed25519 is what ``ssh-keygen -t
ed25519`` makes.

It needs no crypto library: the arithmetic is ``ed25519``'s, which only a run that signs
or verifies loads.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from pathlib import Path
from typing import NamedTuple

NAMESPACE = "handoff-gate"
KEY_TYPE = "ssh-ed25519"
HASH_ALGORITHMS = ("sha512", "sha256")

_MAGIC = b"SSHSIG"
_VERSION = 1
_BEGIN = "-----BEGIN SSH SIGNATURE-----"
_END = "-----END SSH SIGNATURE-----"
_WRAP = 70
_MAX_ARMORED = 4096
_PRIVATE_MAGIC = b"openssh-key-v1\x00"
_PRIVATE_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
_PRIVATE_END = "-----END OPENSSH PRIVATE KEY-----"


class SignatureError(ValueError):
    """A signature that cannot be read or does not verify; the message is one line."""


class SigningError(RuntimeError):
    """A signature could not be made (unreadable key, ssh-keygen failed); one line."""


def _show(raw: bytes | str, limit: int = 40) -> str:
    """An untrusted name, quoted and cut short, safe to put in a one-line message."""
    text = raw.decode("ascii", "backslashreplace") if isinstance(raw, bytes) else raw
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


def _string(value: bytes) -> bytes:
    return struct.pack(">I", len(value)) + value


class _Reader:
    """Reads the SSH wire encoding (uint32 lengths, big-endian) and never past the end."""

    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._at = 0
        self._what = what

    def take(self, size: int) -> bytes:
        if self._at + size > len(self._data):
            raise SignatureError(f"{self._what} is truncated")
        chunk = self._data[self._at : self._at + size]
        self._at += size
        return chunk

    def uint32(self) -> int:
        value: int = struct.unpack(">I", self.take(4))[0]
        return value

    def string(self) -> bytes:
        return self.take(self.uint32())

    def end(self) -> None:
        if self._at != len(self._data):
            raise SignatureError(f"{self._what} has {len(self._data) - self._at} trailing bytes")


def _ed25519_blob(blob: bytes, what: str, size: int) -> bytes:
    """The raw ed25519 bytes inside ``string type, string raw``; any other type is refused."""
    reader = _Reader(blob, what)
    key_type = reader.string()
    if key_type != KEY_TYPE.encode():
        raise SignatureError(f"unsupported key type {_show(key_type)}: only {KEY_TYPE} is accepted")
    raw = reader.string()
    reader.end()
    if len(raw) != size:
        raise SignatureError(f"{what} holds {len(raw)} bytes, not {size}")
    return raw


def format_public_key(raw: bytes) -> str:
    """The OpenSSH one-line form (``ssh-ed25519 AAAA...``, no comment) of a raw ed25519 key."""
    blob = _string(KEY_TYPE.encode()) + _string(raw)
    return f"{KEY_TYPE} {base64.b64encode(blob).decode()}"


def fingerprint(public_key: str) -> str:
    """``SHA256:...`` as ``ssh-keygen -l`` prints it, to name a key in a message."""
    blob = base64.b64decode(public_key.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def parse_public_key(key_type: str, encoded: str) -> str:
    """Check an OpenSSH public key (type and base64 fields) and return its canonical form."""
    if key_type != KEY_TYPE:
        raise SignatureError(f"unsupported key type {_show(key_type)}: only {KEY_TYPE} is accepted")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except ValueError:
        raise SignatureError("public key is not valid base64") from None
    raw = _ed25519_blob(blob, "public key", 32)
    return format_public_key(raw)


def _dearmor(armored: str) -> bytes:
    if len(armored) > _MAX_ARMORED:
        raise SignatureError(f"signature is longer than {_MAX_ARMORED} characters")
    lines = armored.strip().splitlines()
    if len(lines) < 3 or lines[0] != _BEGIN or lines[-1] != _END:
        raise SignatureError(f"signature is not armored between {_BEGIN} and {_END}")
    try:
        return base64.b64decode("".join(lines[1:-1]), validate=True)
    except ValueError:
        raise SignatureError("signature armor is not valid base64") from None


def signed_data(namespace: bytes, reserved: bytes, hash_algorithm: bytes, message: bytes) -> bytes:
    """What the key actually signs: the message's hash, bound to namespace and algorithm."""
    digest = hashlib.new(hash_algorithm.decode(), message).digest()
    return (
        _MAGIC + _string(namespace) + _string(reserved) + _string(hash_algorithm) + _string(digest)
    )


def _armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    body = "\n".join(text[i : i + _WRAP] for i in range(0, len(text), _WRAP))
    return f"{_BEGIN}\n{body}\n{_END}\n"


def private_header(data: bytes, key_path: Path) -> tuple[bytes, str]:
    """(cipher name, public key) of an OpenSSH ed25519 private key, read without a passphrase."""
    text = data.decode("ascii", "replace").strip().splitlines()
    if len(text) < 3 or text[0] != _PRIVATE_BEGIN or text[-1] != _PRIVATE_END:
        raise SigningError(f"{key_path}: not an OpenSSH private key")
    try:
        reader = _Reader(base64.b64decode("".join(text[1:-1]), validate=True), "private key")
        if reader.take(len(_PRIVATE_MAGIC)) != _PRIVATE_MAGIC:
            raise SignatureError("private key does not start with openssh-key-v1")
        cipher = reader.string()
        reader.string()
        reader.string()
        if reader.uint32() != 1:
            raise SignatureError("private key file holds more than one key")
        public_blob = reader.string()
    except ValueError as error:
        raise SigningError(f"{key_path}: unreadable OpenSSH private key ({error})") from None
    try:
        return cipher, format_public_key(_ed25519_blob(public_blob, "public key", 32))
    except SignatureError as error:
        raise SigningError(f"{key_path}: {error}") from None


def public_key_of(key_path: Path) -> str:
    """The public key (``ssh-ed25519 AAAA...``) of an OpenSSH private key file, read
    from its unencrypted header, so passphrase-protected keys work too."""
    return private_header(read_key(key_path), key_path)[1]


class Signature(NamedTuple):
    """An SSHSIG blob taken apart: who signed, over which namespace and hash, and the bytes."""

    raw_key: bytes
    namespace: bytes
    reserved: bytes
    hash_algorithm: bytes
    raw_signature: bytes

    def signed_data(self, message: bytes) -> bytes:
        """What the key must have signed for this signature to be over ``message``."""
        return signed_data(self.namespace, self.reserved, self.hash_algorithm, message)


def parse_signature(armored: str, namespace: str = NAMESPACE) -> Signature:
    """An armored SSHSIG, checked for everything but the arithmetic (``SignatureError``)."""
    reader = _Reader(_dearmor(armored), "signature")
    if reader.take(len(_MAGIC)) != _MAGIC:
        raise SignatureError("signature does not start with SSHSIG")
    version = reader.uint32()
    if version != _VERSION:
        raise SignatureError(f"unsupported SSHSIG version {version}")
    key_blob = reader.string()
    signed_namespace = reader.string()
    reserved = reader.string()
    hash_algorithm = reader.string()
    signature_blob = reader.string()
    reader.end()
    raw_key = _ed25519_blob(key_blob, "public key", 32)
    raw_signature = _ed25519_blob(signature_blob, "signature", 64)
    if signed_namespace != namespace.encode():
        raise SignatureError(
            f"signature is for namespace {_show(signed_namespace)}, not {_show(namespace)}"
        )
    if hash_algorithm.decode("ascii", "replace") not in HASH_ALGORITHMS:
        raise SignatureError(f"unsupported hash algorithm {_show(hash_algorithm)}")
    return Signature(raw_key, signed_namespace, reserved, hash_algorithm, raw_signature)


def armored_signature(raw_key: bytes, namespace: str, hash_algorithm: str, raw: bytes) -> str:
    """The armored SSHSIG of an ed25519 signature ``raw`` made over ``signed_data``."""
    signature_blob = _string(KEY_TYPE.encode()) + _string(raw)
    blob = (
        _MAGIC
        + struct.pack(">I", _VERSION)
        + _string(_string(KEY_TYPE.encode()) + _string(raw_key))
        + _string(namespace.encode())
        + _string(b"")
        + _string(hash_algorithm.encode())
        + _string(signature_blob)
    )
    return _armor(blob)


def check_signing_request(namespace: str, hash_algorithm: str) -> None:
    """``SigningError`` for a request no signer should act on."""
    if not namespace:
        raise SigningError("namespace must not be empty")
    if hash_algorithm not in HASH_ALGORITHMS:
        raise SigningError(f"unsupported hash algorithm {_show(hash_algorithm)}")


def read_key(key_path: Path) -> bytes:
    """A private key file's bytes; ``SigningError`` naming the file when unreadable."""
    try:
        return key_path.read_bytes()
    except OSError as error:
        raise SigningError(f"{key_path}: {error.strerror or error}") from None
