"""``GateContext``: what every stage works with, passed as one object.

The store, the contracts, the policy and the signing key travel together, rather than
four keywords echoed through every layer. It lives at the lowest stage that needs all
four, so every stage above can take it; ``gates.setup.Setup`` adds the store's ownership.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, NamedTuple

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.placement import producer_principal

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


class Signing(NamedTuple):
    """The producer's key and the principal it signs the handoff as."""

    key: SigningKey
    signer: str


@dataclass(frozen=True, slots=True)
class GateContext:
    """Where runs live, which contracts exist, and the policy and key, if any."""

    store: RunStore
    contracts: Registry
    policy: Policy | None = None
    key: SigningKey | None = None

    def signing(self, phase: str, signer: str | None = None) -> Signing | None:
        """How a handoff of ``phase`` is signed: as ``signer`` with the key, or, with a
        key and a policy and no ``signer``, as the producer of ``phase`` the policy lets
        the key sign as (``ValueError`` if none); unsigned without a key."""
        if signer is not None:
            if self.key is None:
                raise ValueError("signing a handoff needs both a key and the signer's name")
            return Signing(self.key, signer)
        if self.key is None or self.policy is None:
            return None
        return Signing(self.key, producer_principal(self.key, self.policy, phase))

    def expires_in(self, phase: str, given: timedelta | str | None) -> timedelta | str | None:
        """The deadline asked for, else the policy rule of ``phase``'s (``expires_in``)."""
        if given is not None or self.policy is None:
            return given
        rule = self.policy.rule_for(phase)
        return rule.expires_in if rule is not None else None
