"""Turning arguments into what the commands work on: contracts, payload bytes, the store,
runs, keys and policies.

A command's configuration is one ``Setup`` (``setup_from``), assembled by
``gates.setup.assemble`` as the ``Gate`` is: under a policy the contracts load through its
pins, whatever the command. Every failure here is a ``UsageError`` worded by ``errors``,
so the same mistake reads the same in every command.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError, no_handoff, not_a_run, one_line, os_problem
from handoff_gate.gates.contracts.registry import Registry, RegistryError
from handoff_gate.gates.setup import Setup, assemble, load_contracts
from handoff_gate.gates.store.base import RunStore, has_handoff
from handoff_gate.gates.store.durable import read_bounded
from handoff_gate.gates.store.select import StoreURLError, listed_store, store_for
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV, STORE_ENV
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


def registry(spec: str | None, rules: Policy | None = None) -> Registry:
    """The built-in contracts plus ``--schemas`` (or the environment's default); under
    a policy only modules its ``[[contracts]]`` pin, checked before they run."""
    try:
        return load_contracts(spec, rules)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc


def read_input(name: str) -> bytes:
    """A payload file's bytes, or stdin's for ``-``, capped at the handoff size limit."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_HANDOFF_BYTES + 1)
        if len(data) > MAX_HANDOFF_BYTES:
            raise UsageError(f"stdin is over the {MAX_HANDOFF_BYTES}-byte limit")
        return data
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{name} is a directory, not a file")
    try:
        return read_bounded(path, MAX_HANDOFF_BYTES)
    except FileNotFoundError as exc:
        raise UsageError(f"no such file: {name}") from exc
    except OSError as exc:
        raise os_problem("read", name, exc) from exc


def store_url(args: argparse.Namespace) -> str:
    """What ``--store`` (else ``HANDOFF_GATE_STORE``) says; empty: run folders."""
    given: str | None = getattr(args, "store", None)
    return os.environ.get(STORE_ENV, "") if given is None else given


def store(args: argparse.Namespace) -> RunStore:
    """The store ``--store`` (or ``HANDOFF_GATE_STORE``) names; the filesystem by default."""
    try:
        return store_for(store_url(args))
    except StoreURLError as exc:
        raise UsageError(str(exc)) from exc


def listed(args: argparse.Namespace, command: str) -> RunStore:
    """The store whose every run ``command`` shows: the database, or the folder ROOT."""
    try:
        return listed_store(store_url(args), args.root, command)
    except StoreURLError as exc:
        raise UsageError(str(exc)) from exc


def policy(args: argparse.Namespace) -> Policy | None:
    """The policy ``--policy`` (or ``HANDOFF_GATE_POLICY``) loaded while parsing, checked
    against ``--policy-sha256`` when given: a pipeline that can write next to the policy
    must not be able to widen it."""
    loaded: Policy | None = getattr(args, "policy", None)
    pinned = getattr(args, "policy_sha256", None)
    if loaded is None:
        if pinned is not None:
            raise UsageError("--policy-sha256 pins a policy, but no --policy was given")
        return None
    if pinned is not None and loaded.digest != pinned.lower():
        raise UsageError(
            f"the policy {loaded.path} (with its allowed_signers) is not the one pinned by "
            f"--policy-sha256: its digest is {loaded.digest}"
        )
    return loaded


def signing_key(args: argparse.Namespace) -> SigningKey | None:
    """The key ``--key`` (or ``HANDOFF_GATE_KEY``) names, checked while parsing."""
    key: SigningKey | None = getattr(args, "key", None)
    return key


def created_run(run: str, where: RunStore, doing: str) -> None:
    """Make the run if it is missing (parent folders too, as ``mkdir -p``) and say so on
    stderr, once, with where it is: a typo in the path shows as a run nobody meant. A
    path that cannot be a run is a ``UsageError`` saying what ``doing`` could not do."""
    try:
        made = where.create(run)
    except PermissionError as exc:
        raise os_problem("create the run", visible(run), exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot {doing}: {one_line(exc)}") from exc
    if made:
        print(f"new run {visible(where.run_label(run))}", file=sys.stderr)


def existing_run(run: str, where: RunStore) -> str:
    """A run that must already exist: a run directory, or a run id in a database."""
    try:
        found = where.exists(run)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if not found:
        raise not_a_run(run)
    return run


def existing_handoff(run: str, handoff_id: str, where: RunStore) -> str:
    """The run of a handoff that must already exist there."""
    existing_run(run, where)
    try:
        found = has_handoff(where, run, handoff_id)
    except (UnsafePathError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    if not found:
        raise no_handoff(run, handoff_id)
    return run


def setup_from(args: argparse.Namespace, where: RunStore | None = None) -> Setup:
    """The command's configuration: the store ``--store`` names (or ``where``, for the
    commands that show every run), ``--schemas`` loaded under the pins of ``--policy``
    (checked against ``--policy-sha256``), and ``--key``. The environment's store, policy
    and key were applied while parsing; ``--schemas`` falls back to
    ``HANDOFF_GATE_SCHEMAS`` here, and ``assemble`` reads nothing more."""
    spec: str | None = getattr(args, "schemas", None)
    try:
        setup = assemble(
            store(args) if where is None else where,
            contracts=os.environ.get(SCHEMAS_ENV, "") if spec is None else spec,
            policy=policy(args),
            key=signing_key(args),
            env={},
        )
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    return setup if where is not None else replace(setup, owns_store=True)
