"""``Setup``: a gate's configuration, assembled in one place for every front end.

The store, the contracts, the policy and the signing key travel together: the contracts
are loaded under the policy's ``[[contracts]]`` pins (an edited pinned module is refused
before any of its code runs), and a store opened here is closed by whoever holds the
Setup. ``assemble`` is the only code that turns places, specs and the environment
(``HANDOFF_GATE_STORE``, ``_SCHEMAS``, ``_POLICY``, ``_KEY``) into these objects: the
``Gate`` is built on it, the command line builds one from its arguments
(``cli.inputs.setup_from``) and the review app's core takes one. It imports no asyncio
and no wait, so a command that needs only the parts starts as fast as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.select import store_at, store_for
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.vocab.environment import KEY_ENV, POLICY_ENV, SCHEMAS_ENV, STORE_ENV

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey

StoreSpec = str | os.PathLike[str] | RunStore


@dataclass(frozen=True, slots=True)
class Setup(GateContext):
    """One gate's configuration: the context every stage takes (``GateContext``: the
    store, contracts, policy and key, and how a handoff is signed and given a deadline).
    ``owns_store``: the store was opened by ``assemble`` (from a place), so ``close``
    closes it; a store object passed in stays its owner's."""

    owns_store: bool = False

    def close(self) -> None:
        if self.owns_store:
            self.store.close()


def assemble(
    store: StoreSpec | None = None,
    *,
    contracts: Registry | str | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    key: SigningKey | str | os.PathLike[str] | None = None,
    env: Mapping[str, str] = os.environ,
) -> Setup:
    """The configuration given, with the environment's for what was not (``None``).

    ``store``: a folder of runs, a ``postgresql://`` URL or a ``RunStore`` (``None``:
    ``$HANDOFF_GATE_STORE``, else run folders named by their paths). ``contracts``: a
    loaded registry or a spec, loaded under the policy's pins. ``policy`` and ``key``:
    objects or files. ``RegistryError``, ``StoreURLError``, ``PolicyError`` and
    ``OSError`` say what could not be used.
    """
    if policy is None:
        policy = env.get(POLICY_ENV) or None
    rules = _policy_file(policy) if isinstance(policy, str | os.PathLike) else policy
    if contracts is None or isinstance(contracts, str):
        contracts = load_contracts(
            env.get(SCHEMAS_ENV, "") if contracts is None else contracts, rules
        )
    if key is None:
        key = env.get(KEY_ENV) or None
    signing = _key_file(key) if isinstance(key, str | os.PathLike) else key
    if store is not None and not isinstance(store, str | os.PathLike):
        return Setup(store, contracts, rules, signing)
    opened = store_for(env.get(STORE_ENV, "")) if store is None else store_at(store)
    return Setup(opened, contracts, rules, signing, owns_store=True)


def _policy_file(path: str | os.PathLike[str]) -> Policy:
    """A policy named by its file. The trust code (TOML, the crypto library) loads only
    for a gate that names a policy or a key: an unsigned gate never loads it
    (docs/architecture.md, "Laziness at the boundary only")."""
    from handoff_gate.gates.trust.policy import Policy

    return Policy.load(Path(path))


def _key_file(path: str | os.PathLike[str]) -> SigningKey:
    """A signing key named by its file (loaded as ``_policy_file`` says)."""
    from handoff_gate.gates.trust.signing_key import SigningKey

    return SigningKey(Path(path))


def load_contracts(spec: str | None, policy: Policy | None) -> Registry:
    """The built-in contracts plus ``spec``'s, under ``policy`` only the modules its
    ``[[contracts]]`` pin (``RegistryError`` names the module and the pin otherwise,
    before any of its code runs). Every registry a front end reviews with is loaded here."""
    return load_registry(spec, pins=contract_pins(policy))


def contract_pins(policy: Policy | None) -> dict[str, str] | None:
    """What a registry loaded under ``policy`` may run: its ``[[contracts]]`` pins, or
    ``None`` (no policy: any named module loads, as before policies pinned them)."""
    return None if policy is None else dict(policy.contract_pins)
