"""``Setup``: a gate's configuration, assembled in one place for every front end.

``assemble`` makes one for a ``Gate`` made in code (what was not given comes from the
environment), ``Assembly`` for a front end's ``Config``; both load contracts through
``load_contracts``, under the policy's pins. It imports no asyncio and no wait, so a
command that needs only the parts starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.contracts.registry import Registry, RegistryError, load_registry
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.select import StoreURLError, listed_store, store_at, store_for
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.vocab.environment import ConfigError, Environment

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey

StoreSpec = str | os.PathLike[str] | RunStore


@dataclass(frozen=True, slots=True)
class Setup(GateContext):
    """The context every stage takes (``GateContext``). ``owns_store``: ``assemble``
    opened the store, so ``close`` closes it; a store object passed in stays its owner's."""

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
    env: Mapping[str, str] | None = None,
) -> Setup:
    """The configuration given (as ``Gate`` takes it), with the environment's for what
    was not (``None``). ``RegistryError``, ``StoreURLError``, ``PolicyError`` and
    ``OSError`` say what could not be used."""
    given = Environment.read(env)
    if policy is None:
        policy = given.policy
    rules = _policy_file(policy) if isinstance(policy, str | os.PathLike) else policy
    if contracts is None or isinstance(contracts, str):
        contracts = load_contracts(given.schemas if contracts is None else contracts, policy=rules)
    if key is None:
        key = given.key
    signing = _key_file(key) if isinstance(key, str | os.PathLike) else key
    if store is not None and not isinstance(store, str | os.PathLike):
        return Setup(store, contracts, rules, signing)
    opened = store_for(given.store) if store is None else store_at(store)
    return Setup(opened, contracts, rules, signing, owns_store=True)


@dataclass(frozen=True, slots=True)
class Config:
    """A front end's settings, the environment's defaults applied (``cli.main``):
    ``policy`` loaded or a file; ``policy_sha256`` its pin; ``listing`` the command that
    shows every run, whose store is the database or the folder ``root``."""

    store: str = ""
    schemas: str = ""
    policy: Policy | str | None = None
    key: SigningKey | None = None
    policy_sha256: str | None = None
    root: str | None = None
    listing: str | None = None


class Assembly:
    """The Setup a ``Config`` describes, each part made when first asked for (the hook's
    mistakes come inside its deadline). One thread (the command's) builds it."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.key = config.key

    @cached_property
    def store(self) -> RunStore:
        config = self.config
        try:
            if config.listing is None:
                return store_for(config.store)
            return listed_store(config.store, config.root, config.listing)
        except StoreURLError as exc:
            raise ConfigError(str(exc)) from exc

    @cached_property
    def policy(self) -> Policy | None:
        given = self.config.policy
        return _pinned(
            read_policy(given) if isinstance(given, str) else given, self.config.policy_sha256
        )

    @cached_property
    def contracts(self) -> Registry:
        try:
            return load_contracts(self.config.schemas, policy=self.policy)
        except RegistryError as exc:
            raise ConfigError(str(exc)) from exc

    @cached_property
    def setup(self) -> Setup:
        """Every part, in the order a mistake is best said: store, policy, contracts."""
        store = self.store
        return Setup(store, self.contracts, self.policy, self.key)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()


def read_policy(path: str | os.PathLike[str]) -> Policy:
    """A policy file and its allowed_signers, or ``ConfigError`` saying why not in one
    line. The trust code (TOML, the crypto library) loads only for a policy named."""
    from handoff_gate.gates.trust.policy import PolicyError

    try:
        return _policy_file(path)
    except (PolicyError, OSError) as exc:
        raise ConfigError(f"cannot use the policy: {' '.join(str(exc).split())}") from exc


def read_key(path: str | os.PathLike[str]) -> SigningKey:
    """A private key file that exists (it is read when it signs); ``ConfigError`` if
    there is none."""
    where = Path(path)
    if where.is_dir():
        raise ConfigError(f"{os.fspath(path)} is a directory, not a key file")
    if not where.is_file():
        raise ConfigError(f"no such key file: {os.fspath(path)}")
    return _key_file(where)


def _pinned(policy: Policy | None, pin: str | None) -> Policy | None:
    """The policy, once it has the digest ``pin`` names (when one does): a pipeline that
    can write next to the policy must not be able to widen it."""
    if pin is None:
        return policy
    if policy is None:
        raise ConfigError("--policy-sha256 pins a policy, but no --policy was given")
    if policy.digest != pin.lower():
        raise ConfigError(
            f"the policy {policy.path} (with its allowed_signers) is not the one pinned by "
            f"--policy-sha256: its digest is {policy.digest}"
        )
    return policy


def _policy_file(path: str | os.PathLike[str]) -> Policy:
    """A policy named by its file. The trust code (TOML, the crypto library) loads only
    for a gate that names a policy or a key: an unsigned gate never loads it
    (docs/architecture.md, "Laziness at the boundary only")."""
    from handoff_gate.gates.trust.policy import Policy

    return Policy.load(Path(path))


def _key_file(path: str | os.PathLike[str]) -> SigningKey:
    """Loaded here for the reason ``_policy_file`` gives."""
    from handoff_gate.gates.trust.signing_key import SigningKey

    return SigningKey(Path(path))


def load_contracts(spec: str | None, *, policy: Policy | None) -> Registry:
    """The built-in contracts plus ``spec``'s, under ``policy`` only the modules its
    ``[[contracts]]`` pin. ``policy`` has no default: a caller says "no policy" as
    ``policy=None``, never by forgetting it (a pin-less default let ``schemas`` run an
    edited module)."""
    return load_registry(spec, pins=contract_pins(policy))


def contract_pins(policy: Policy | None) -> dict[str, str] | None:
    """What a registry loaded under ``policy`` may run: its ``[[contracts]]`` pins, or
    ``None`` (no policy: any named module loads, as before policies pinned them)."""
    return None if policy is None else dict(policy.contract_pins)
