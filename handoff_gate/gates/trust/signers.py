"""The OpenSSH ``allowed_signers`` file: which key may sign as which principal, where and when.

Why this format: it is the one ``ssh-keygen -Y verify -f`` reads (see ALLOWED SIGNERS in
ssh-keygen(1)), so a reviewer can check any decision by hand with the same file. Each line is
``principals [options] keytype base64-key [comment]``; ``#`` starts a comment line.

Read strictly, because a line silently misread could let the wrong key approve:
- principals are comma-separated patterns with ``*`` and ``?``; ``!`` negation is refused
  rather than half-supported;
- options are ``namespaces="..."``, ``valid-after="..."`` and ``valid-before="..."``, values
  in double quotes as ssh-keygen demands; times are ``YYYYMMDD[Z]`` or ``YYYYMMDDHHMM[SS][Z]``,
  in the local time zone unless ``Z``, as ssh-keygen reads them;
- ``cert-authority``, unknown options and key types other than ``ssh-ed25519`` are errors,
  since certificates and other keys are not verified here.
Every error names the file and the line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from handoff_gate.gates.trust.sshsig import (
    NAMESPACE,
    SignatureError,
    fingerprint,
    parse_public_key,
)

_MAX_BYTES = 1024 * 1024
_KEY_TYPE = re.compile(r"(ssh-|ecdsa-|sk-)\S*\Z")
_TIMESTAMP = re.compile(r"([0-9]{8})(?:([0-9]{4})([0-9]{2})?)?(Z?)\Z")


class AllowedSignersError(ValueError):
    """A malformed allowed_signers file; the message is one line naming file and line."""


class UntrustedSigner(SignatureError):
    """A valid signature by a key that is not allowed to sign as that principal (now, here)."""


@functools.lru_cache(maxsize=256)
def _pattern(text: str) -> re.Pattern[str]:
    """An OpenSSH pattern (``*`` any run, ``?`` one character, the rest literal) as a regex."""
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
    return re.compile("".join(parts), re.DOTALL)


def _fields(text: str, cut: Callable[[str], bool]) -> list[str]:
    """``text`` cut at every character ``cut`` accepts, except inside double quotes (which
    keep spaces and commas inside one field)."""
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if cut(char) and not quoted:
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    if quoted:
        raise ValueError("unterminated double quote")
    fields.append("".join(current))
    return fields


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    if '"' in text:
        raise ValueError(f"misplaced double quote in {text!r}")
    return text


def _patterns(text: str, what: str) -> tuple[str, ...]:
    patterns = tuple(_unquote(text).split(","))
    for pattern in patterns:
        if not pattern:
            raise ValueError(f"empty {what} pattern")
        if pattern.startswith("!"):
            raise ValueError(f"negated {what} pattern {pattern!r} is not supported")
    return patterns


def _timestamp(text: str) -> datetime:
    """``YYYYMMDD[Z]`` or ``YYYYMMDDHHMM[SS][Z]``; local time unless ``Z``, as in ssh-keygen."""
    match = _TIMESTAMP.match(text)
    if match is None:
        raise ValueError(f"timestamp {text!r} is not YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]")
    digits = match[1] + (match[2] or "0000") + (match[3] or "00")
    try:
        naive = datetime.strptime(digits, "%Y%m%d%H%M%S")
    except ValueError:
        raise ValueError(f"timestamp {text!r} is not a real date") from None
    return naive.replace(tzinfo=UTC) if match[4] else naive.astimezone()


@dataclass(frozen=True)
class SignerEntry:
    """One line of the file: who (patterns), which key, and where/when it may sign."""

    line: int
    principals: tuple[str, ...]
    public_key: str
    namespaces: tuple[str, ...] | None = None
    valid_after: datetime | None = None
    valid_before: datetime | None = None

    def names(self, principal: str) -> bool:
        return any(_pattern(p).fullmatch(principal) for p in self.principals)

    def allows_namespace(self, namespace: str) -> bool:
        if self.namespaces is None:
            return True
        return any(_pattern(p).fullmatch(namespace) for p in self.namespaces)

    def valid_at(self, at: datetime) -> bool:
        """Inclusive at both ends, as ssh-keygen checks them."""
        if self.valid_after is not None and at < self.valid_after:
            return False
        return not (self.valid_before is not None and at > self.valid_before)


_Options = tuple[tuple[str, ...] | None, datetime | None, datetime | None]


def _options(text: str) -> _Options:
    """(namespaces, valid-after, valid-before) from the comma-separated options field."""
    namespaces: tuple[str, ...] | None = None
    times: dict[str, datetime] = {}
    seen: set[str] = set()
    for option in _fields(text, ",".__eq__):
        name, _, value = option.partition("=")
        name = name.lower()
        if name == "cert-authority":
            raise ValueError("cert-authority is not supported: list each signer's own key")
        if name not in ("namespaces", "valid-after", "valid-before"):
            raise ValueError(f"unknown option {name[:40]!r}")
        if name in seen:
            raise ValueError(f"option {name!r} given twice")
        seen.add(name)
        if len(value) < 2 or value[0] != '"' or value[-1] != '"':
            raise ValueError(f'option {name!r} needs a value in double quotes ({name}="...")')
        if name == "namespaces":
            namespaces = _patterns(value, "namespace")
        else:
            times[name] = _timestamp(value[1:-1])
    return namespaces, times.get("valid-after"), times.get("valid-before")


def _entry(line: str, number: int) -> SignerEntry:
    tokens = [token for token in _fields(line, str.isspace) if token]
    if len(tokens) < 3:
        raise ValueError("expected: principals [options] keytype base64-key [comment]")
    principals = _patterns(tokens[0], "principal")
    options: _Options = (None, None, None)
    rest = tokens[1:]
    if not _KEY_TYPE.match(rest[0]):
        options = _options(rest[0])
        rest = rest[1:]
    if len(rest) < 2:
        raise ValueError("missing key type or key")
    try:
        public_key = parse_public_key(rest[0], rest[1])
    except SignatureError as error:
        raise ValueError(str(error)) from None
    return SignerEntry(
        line=number,
        principals=principals,
        public_key=public_key,
        namespaces=options[0],
        valid_after=options[1],
        valid_before=options[2],
    )


def utc_now() -> datetime:
    """The verifier's clock unless told otherwise: the moment of the check."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class AllowedSigners:
    """A parsed allowed_signers file; ``source`` names it in messages.

    ``clock`` is when a key's ``valid-after``/``valid-before`` window is judged when no
    ``at`` is given: the verifier's own time, never a time the signed record claims (a
    revoked key would approve by backdating, a future key by forward-dating). Tests
    replace it (``at_clock``) instead of the system's time.
    """

    source: str
    entries: tuple[SignerEntry, ...]
    clock: Callable[[], datetime] = field(default=utc_now, compare=False, repr=False)

    def at_clock(self, clock: Callable[[], datetime]) -> AllowedSigners:
        """The same signers, judging key windows by ``clock``."""
        return AllowedSigners(self.source, self.entries, clock)

    def _when(self, at: datetime | None) -> datetime:
        at = at if at is not None else self.clock()
        if at.tzinfo is None:
            raise ValueError("the verification time must carry a time zone")
        return at

    @classmethod
    def parse(cls, data: bytes, source: str) -> AllowedSigners:
        if len(data) > _MAX_BYTES:
            raise AllowedSignersError(f"{source}: larger than {_MAX_BYTES} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AllowedSignersError(f"{source}: not UTF-8 (byte {error.start})") from None
        entries: list[SignerEntry] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                entries.append(_entry(line, number))
            except ValueError as error:
                raise AllowedSignersError(f"{source}: line {number}: {error}") from None
        return cls(source, tuple(entries))

    @classmethod
    def load(cls, path: Path) -> AllowedSigners:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise AllowedSignersError(f"{path}: {error.strerror or error}") from None
        return cls.parse(data, str(path))

    def principals_for(
        self, public_key: str, namespace: str = NAMESPACE, at: datetime | None = None
    ) -> list[str]:
        """The principal patterns this key may sign as, in this namespace, at this time."""
        when = self._when(at)
        found: list[str] = []
        for entry in self.entries:
            if (
                entry.public_key == public_key
                and entry.allows_namespace(namespace)
                and entry.valid_at(when)
            ):
                found.extend(p for p in entry.principals if p not in found)
        return found

    def names_among(
        self,
        public_key: str,
        names: Iterable[str],
        namespace: str = NAMESPACE,
        at: datetime | None = None,
    ) -> list[str]:
        """Those of ``names`` (in their order) this key may sign as, in this namespace,
        at this time: who a key decides as under a rule's approvers."""
        when = self._when(at)
        entries = [
            e
            for e in self.entries
            if e.public_key == public_key and e.allows_namespace(namespace) and e.valid_at(when)
        ]
        return [name for name in names if any(e.names(name) for e in entries)]

    def verify(
        self,
        message: bytes,
        armored: str,
        principal: str,
        namespace: str = NAMESPACE,
        at: datetime | None = None,
    ) -> str:
        """Check the signature and that its key may sign as ``principal``; return the key.

        Raises ``SignatureError`` for a bad signature and ``UntrustedSigner`` (a subclass)
        when the key is not listed for the principal, the namespace or the time ``at``
        (by default the verifier's ``clock``: now).
        """
        # The cryptography library loads here, on the first signature checked: a process
        # that reads no signed record (a hook without a policy) never pays for it.
        from handoff_gate.gates.trust import ed25519

        when = self._when(at)
        public_key = ed25519.verify(message, armored, namespace)
        listed = [e for e in self.entries if e.public_key == public_key and e.names(principal)]
        key = fingerprint(public_key)
        if not listed:
            raise UntrustedSigner(
                f"key {key} is not listed for principal {principal!r} in {self.source}"
            )
        in_namespace = [e for e in listed if e.allows_namespace(namespace)]
        if not in_namespace:
            raise UntrustedSigner(
                f"key {key} may not sign namespace {namespace!r} (line {listed[0].line})"
            )
        if not any(e.valid_at(when) for e in in_namespace):
            raise UntrustedSigner(
                f"key {key} is not valid for {principal!r} at {when.isoformat()} "
                f"(line {in_namespace[0].line})"
            )
        return public_key
