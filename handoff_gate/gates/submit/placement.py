"""Checks that bind a handoff to its place and its producer, beyond what its bytes say.

An envelope copied from another run, or renamed to another id, must not be reviewed
(or delivered) as if it belonged here (``misplaced``); under a policy rule with
``producers``, the producer's signature must verify for one of them.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from handoff_gate.gates.trust.sshsig import NAMESPACE, SignatureError
from handoff_gate.gates.trust.statement import StatementError, handoff_statement
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Finding, Severity

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


def misplaced(envelope: Envelope, run_name: str, handoff_id: str) -> Finding | None:
    """A ``misplaced`` finding when the envelope names another place than where it is."""
    seq, phase = handoff_id.split("-", 1)
    wrong = [
        f"{name} {found!r} (stored as {expected!r})"
        for name, found, expected in (
            ("id", envelope.id, handoff_id),
            ("run", envelope.run, run_name),
            ("seq", envelope.seq, int(seq)),
            ("phase", envelope.phase, phase),
        )
        if found != expected
    ]
    if not wrong:
        return None
    return Finding(
        Code.MISPLACED, "", Severity.BLOCK, "the envelope names another place: " + ", ".join(wrong)
    )


def producer_bytes_sha256(envelope: Envelope) -> str | None:
    """The sha256 a producer signs: of its exact output (``None`` if there is none)."""
    try:
        produced = envelope.producer_bytes()
    except ValueError:
        return None
    return None if produced is None else hashlib.sha256(produced).hexdigest()


def signed_schema(schema_id: str, schema_sha256: str | None) -> str:
    """The ``schema`` a producer's statement names: the id, and for a contract stored in
    the run its digest too (``ID@sha256:DIGEST``), so the signature covers which
    document the handoff was made against, not only its name."""
    return schema_id if schema_sha256 is None else f"{schema_id}@sha256:{schema_sha256}"


def producer_principal(key: SigningKey, policy: Policy, phase: str) -> str:
    """The producer of ``phase`` the key may sign as (for ``submit --key``);
    ``ValueError`` naming the phase's producers when it signs for none."""
    rule = policy.rule_for(phase)
    if rule is None or rule.producers is None:
        raise ValueError(f"{policy.path}: phase {phase!r} names no producers to sign as")
    public_key = key.public_key()
    listed = [e for e in policy.signers.entries if e.public_key == public_key]
    for name in rule.producers:
        if any(e.names(name) and e.allows_namespace(NAMESPACE) for e in listed):
            return name
    who = ", ".join(rule.producers)
    raise ValueError(f"this key may not produce phase {phase!r}; who may: {who}")


def verified_producer(envelope: Envelope, run_name: str, policy: Policy) -> str | None:
    """The envelope's signer when its signature verifies under the policy, else ``None``."""
    if envelope.signer is None or envelope.signature is None:
        return None
    digest = producer_bytes_sha256(envelope)
    if digest is None:
        return None
    try:
        statement = handoff_statement(
            run=run_name,
            handoff=envelope.id,
            sha256=digest,
            phase=envelope.phase,
            schema=signed_schema(envelope.schema_id, envelope.schema_sha256),
            principal=envelope.signer,
            at=envelope.created,
            expires_at=envelope.expires_at,
        )
        policy.signers.verify(statement, envelope.signature, envelope.signer)
    except (SignatureError, StatementError):
        return None
    return envelope.signer


def producer_finding(envelope: Envelope, run_name: str, policy: Policy) -> Finding | None:
    """``unsigned_handoff``/``unknown_producer`` when the phase's rule names producers."""
    rule = policy.rule_for(envelope.phase)
    if rule is None or rule.producers is None:
        return None
    allowed = ", ".join(rule.producers)
    if envelope.signature is None:
        message = f"phase {envelope.phase!r} must be signed by one of: {allowed}"
        return Finding(Code.UNSIGNED_HANDOFF, "", Severity.BLOCK, message)
    signer = verified_producer(envelope, run_name, policy)
    if signer is None or signer not in rule.producers:
        message = (
            f"the handoff's signature does not verify for one of the producers of phase "
            f"{envelope.phase!r} ({allowed})"
        )
        return Finding(Code.UNKNOWN_PRODUCER, "", Severity.BLOCK, message)
    return None
