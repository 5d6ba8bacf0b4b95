"""The trust policy: who may approve each phase, how many must, and who may produce it.

A TOML file, its keys and what each refuses in docs/security.md (*The policy file*).
Validated strictly, because a typo here fails open or locks a gate forever.

Under a policy, a ``--schemas``/``HANDOFF_GATE_SCHEMAS`` module is code the reviewer and
the waiter would run, so it loads only if a ``[[contracts]]`` table pins its bytes
(``Policy.contract_pins``; checked by ``gates.contracts.registry`` before any of its code
runs). The pins are in the policy file, so ``--policy-sha256`` covers them.

``Policy.digest`` pins the policy AND the keys it trusts, so ``--policy-sha256`` cannot be
satisfied by swapping the allowed_signers file behind an unchanged policy. It is::

    sha256("handoff-gate-policy/1\\n" + sha256hex(policy bytes) + "\\n"
           + sha256hex(allowed_signers bytes) + "\\n")

with lowercase hex, which a shell reproduces as::

    printf 'handoff-gate-policy/1\\n%s\\n%s\\n' "$(sha256sum < policy.toml | cut -c1-64)" \\
        "$(sha256sum < allowed_signers | cut -c1-64)" | sha256sum
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from handoff_gate.gates.rules.auto import TOOL_CALL_PHASE, AutoRule, parse_auto
from handoff_gate.gates.trust.signers import AllowedSigners, AllowedSignersError
from handoff_gate.gates.trust.sshsig import NAMESPACE, fingerprint
from handoff_gate.gates.vocab.deadline import parse_duration
from handoff_gate.gates.vocab.ids import PHASE_PATTERN, PRINCIPAL_PATTERN
from handoff_gate.gates.vocab.policy_error import PolicyError as PolicyError

_TOP_KEYS = frozenset({"allowed_signers", "rule", "contracts", "auto"})
_RULE_KEYS = frozenset({"phase", "approvers", "required", "producers", "expires_in", "auto"})
_CONTRACT_KEYS = frozenset({"module", "sha256"})
_MAX_BYTES = 1024 * 1024
_DIGEST_PREFIX = b"handoff-gate-policy/1\n"
_SHA256 = re.compile(r"[0-9a-f]{64}")


def policy_digest(policy_bytes: bytes, signers_bytes: bytes) -> str:
    """The digest that pins a policy file together with its allowed_signers file."""
    policy_hex = hashlib.sha256(policy_bytes).hexdigest()
    signers_hex = hashlib.sha256(signers_bytes).hexdigest()
    framed = _DIGEST_PREFIX + f"{policy_hex}\n{signers_hex}\n".encode()
    return hashlib.sha256(framed).hexdigest()


@dataclass(frozen=True)
class Rule:
    """Who decides handoffs of ``phase`` (a name or ``*``) and who may produce them."""

    phase: str
    approvers: tuple[str, ...]
    required: int = 1
    producers: tuple[str, ...] | None = None
    #: The default deadline of a handoff of this phase (``submit --expires-in``'s spelling).
    expires_in: str | None = None
    #: Whether an ``[[auto]]`` approve rule's decision counts as one of ``required``
    #: approvals of this phase (rejects by rule count wherever a rule matches).
    auto: bool = False

    def matches(self, phase: str) -> bool:
        return self.phase in ("*", phase)


def _read(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PolicyError(f"{path}: {error.strerror or error}") from None
    if len(data) > _MAX_BYTES:
        raise PolicyError(f"{path}: larger than {_MAX_BYTES} bytes")
    return data


class _Checker:
    """Field checks that raise ``PolicyError`` naming the file and the field."""

    def __init__(self, path: Path, signers: AllowedSigners | None = None) -> None:
        self.path = path
        self.signers = signers

    def fail(self, field: str, problem: str) -> PolicyError:
        return PolicyError(f"{self.path}: {field}: {problem}")

    def unknown(self, table: dict[str, object], allowed: frozenset[str], where: str) -> None:
        extra = sorted(set(table) - allowed)
        if extra:
            raise self.fail(f"{where}{extra[0][:40]}", f"unknown key (allowed: {sorted(allowed)})")

    def names(self, value: object, field: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(field, "must be a non-empty list of principal names")
        for name in value:
            if not isinstance(name, str) or not PRINCIPAL_PATTERN.match(name):
                raise self.fail(
                    field,
                    f"{str(name)[:40]!r} is not a principal name "
                    "(a letter or digit, then letters, digits and ._@+-; up to 100)",
                )
            if value.count(name) > 1:
                raise self.fail(field, f"{name!r} is listed twice")
            if self.signers is not None and not any(e.names(name) for e in self.signers.entries):
                raise self.fail(field, f"{name!r} matches no line of {self.signers.source}")
        return tuple(value)

    def rule(self, table: object, index: int) -> Rule:
        where = f"rule[{index}]"
        if not isinstance(table, dict):
            raise self.fail(where, "must be a table ([[rule]])")
        self.unknown(table, _RULE_KEYS, f"{where}.")
        phase = table.get("phase")
        if not isinstance(phase, str) or not (phase == "*" or PHASE_PATTERN.match(phase)):
            raise self.fail(f"{where}.phase", "must be '*' or a phase name like 'plan'")
        approvers = self.names(table.get("approvers"), f"{where}.approvers")
        required = table.get("required", 1)
        if type(required) is not int or not 1 <= required <= len(approvers):
            raise self.fail(
                f"{where}.required", f"must be an integer from 1 to {len(approvers)} (approvers)"
            )
        producers = table.get("producers")
        if producers is not None:
            producers = self.names(producers, f"{where}.producers")
        expires_in = table.get("expires_in")
        if expires_in is not None:
            try:
                parse_duration(expires_in)
            except ValueError as exc:
                raise self.fail(f"{where}.expires_in", str(exc)) from None
        auto = table.get("auto", False)
        if type(auto) is not bool:
            raise self.fail(f"{where}.auto", "must be true or false")
        rule = Rule(phase, approvers, required, producers, expires_in, auto)
        self.distinct_keys(rule, where)
        return rule

    def contract_pins(self, tables: object) -> dict[str, str]:
        """``[[contracts]]``: each module's absolute path (relative to the policy file,
        symlinks resolved) and the sha256 its bytes must have."""
        if tables is None:
            return {}
        if not isinstance(tables, list):
            raise self.fail("contracts", "must be [[contracts]] tables")
        pins: dict[str, str] = {}
        for index, table in enumerate(tables):
            where = f"contracts[{index}]"
            if not isinstance(table, dict):
                raise self.fail(where, "must be a table ([[contracts]])")
            self.unknown(table, _CONTRACT_KEYS, f"{where}.")
            module, digest = table.get("module"), table.get("sha256")
            if not isinstance(module, str) or not module.endswith(".py"):
                raise self.fail(f"{where}.module", "must be a .py path relative to the policy")
            if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
                raise self.fail(f"{where}.sha256", "must be 64 lowercase hex digits")
            path = str((self.path.parent / module).resolve())
            if path in pins:
                raise self.fail(f"{where}.module", f"{module!r} is listed twice")
            pins[path] = digest
        return pins

    def keys_of(self, name: str) -> set[str]:
        """The keys that may sign as ``name`` in the gate's namespace, at any time."""
        entries = self.signers.entries if self.signers is not None else ()
        return {e.public_key for e in entries if e.names(name) and e.allows_namespace(NAMESPACE)}

    def distinct_keys(self, rule: Rule, where: str) -> None:
        """One key under two approver names would let one person meet a quorum of two,
        and a producer's key under an approver's name would approve its own handoffs
        (the check that a producer may not decide compares names, not keys)."""
        owner: dict[str, str] = {}
        for name in rule.approvers:
            for key in self.keys_of(name):
                other = owner.setdefault(key, name)
                if other != name:
                    raise self.fail(
                        f"{where}.approvers",
                        f"{other!r} and {name!r} may sign with one key ({fingerprint(key)}): "
                        "one person would count as two approvers",
                    )
        for name in rule.producers or ():
            for key in self.keys_of(name):
                if key in owner:
                    raise self.fail(
                        f"{where}.producers",
                        f"producer {name!r} may sign with the key of approver {owner[key]!r} "
                        f"({fingerprint(key)}): it could approve its own handoffs",
                    )


def _auto_rules(check: _Checker, tables: object, rules: tuple[Rule, ...]) -> tuple[AutoRule, ...]:
    """The ``[[auto]]`` rules; an approve rule whose phase's ``[[rule]]`` does not say
    ``auto = true`` is an error here, since its decisions would never count."""
    try:
        auto = parse_auto(tables)
    except PolicyError as error:
        raise PolicyError(f"{check.path}: {error}") from None
    for index, rule in enumerate(auto):
        phase = TOOL_CALL_PHASE if rule.tool is not None else rule.phase or ""
        covering = next((r for r in rules if r.matches(phase)), None)
        if rule.decide.value == "approve" and (covering is None or not covering.auto):
            raise check.fail(
                f"auto[{index}]",
                f"approves {phase!r} handoffs, but no [[rule]] for {phase!r} says auto = true",
            )
    return auto


@dataclass(frozen=True)
class Policy:
    """A loaded policy with its allowed signers; ``digest`` pins both files' bytes."""

    path: Path
    signers_path: Path
    signers: AllowedSigners
    rules: tuple[Rule, ...]
    digest: str
    #: ``[[contracts]]``: the Python contract modules that may load, by absolute path,
    #: each with the sha256 its bytes must have.
    contract_pins: tuple[tuple[str, str], ...] = ()
    #: ``[[auto]]``: the rules that decide a call or handoff without a person.
    auto: tuple[AutoRule, ...] = ()

    @classmethod
    def load(cls, path: Path) -> Policy:
        """Read and check the policy and its allowed_signers; raises ``PolicyError``."""
        policy_bytes = _read(path)
        check = _Checker(path)
        try:
            document = tomllib.loads(policy_bytes.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise PolicyError(f"{path}: not UTF-8 (byte {error.start})") from None
        except tomllib.TOMLDecodeError as error:
            raise PolicyError(f"{path}: not valid TOML: {error}") from None
        check.unknown(document, _TOP_KEYS, "")
        relative = document.get("allowed_signers")
        if not isinstance(relative, str) or not relative:
            raise check.fail("allowed_signers", "must be a path (relative to the policy file)")
        signers_path = path.parent / relative
        signers_bytes = _read(signers_path)
        try:
            signers = AllowedSigners.parse(signers_bytes, str(signers_path))
        except AllowedSignersError as error:
            raise PolicyError(str(error)) from None
        check.signers = signers
        tables = document.get("rule")
        if not isinstance(tables, list) or not tables:
            raise check.fail("rule", "at least one [[rule]] table is needed")
        rules = tuple(check.rule(table, index) for index, table in enumerate(tables))
        seen: set[str] = set()
        for index, rule in enumerate(rules):
            if "*" in seen or rule.phase in seen:
                raise check.fail(f"rule[{index}].phase", "unreachable: an earlier rule matches")
            seen.add(rule.phase)
        pins = check.contract_pins(document.get("contracts"))
        auto = _auto_rules(check, document.get("auto"), rules)
        digest = policy_digest(policy_bytes, signers_bytes)
        return cls(path, signers_path, signers, rules, digest, tuple(pins.items()), auto)

    def at_clock(self, clock: Callable[[], datetime]) -> Policy:
        """The same policy, judging its keys' validity windows by ``clock`` (default:
        now), as every verifier under it does: the waiter, ``decide`` and the TUI."""
        return replace(self, signers=self.signers.at_clock(clock))

    def rule_for(self, phase: str) -> Rule | None:
        """The first rule matching ``phase``, or None when no rule covers it."""
        return next((rule for rule in self.rules if rule.matches(phase)), None)

    def approvers_for(self, public_key: str) -> tuple[str, ...]:
        """The approvers of any rule that ``public_key`` may sign as now: what a
        reviewer's key decides as."""
        named = dict.fromkeys(a for rule in self.rules for a in rule.approvers)
        return tuple(self.signers.names_among(public_key, named))
