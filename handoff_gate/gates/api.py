"""The module functions of ``handoff_gate``: each makes a ``Gate`` for one call.

As ``httpx.get`` wraps a ``Client``; the Gate is closed when the call returns, so a
database connection never outlives the call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Unpack

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.decide.decisions import DecisionOptions
from handoff_gate.gates.deliver.pickup import WaitResult
from handoff_gate.gates.deliver.waiting import AsyncWaitOptions, WaitOptions
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import StoreSpec
from handoff_gate.gates.submit.submit import Payload, SubmitOptions
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report

Run = str | os.PathLike[str]


def submit(
    run: Run,
    payload: Payload,
    *,
    registry: Registry | None = None,
    store: StoreSpec | None = None,
    key: SigningKey | None = None,
    **options: Unpack[SubmitOptions],
) -> HandoffRef:
    """``Gate.submit`` on a Gate made for this call."""
    with Gate(store, contracts=registry, key=key) as gate:
        return gate.submit(run, payload, **options)


def add_contract(
    run: Run, schema_id: str, schema: Mapping[str, Any], *, store: StoreSpec | None = None
) -> str:
    """``Gate.add_contract`` on a Gate made for this call."""
    with Gate(store, contracts={}) as gate:
        return gate.add_contract(run, schema_id, schema)


def decide(
    run: Run,
    ref_or_id: HandoffRef | str,
    action: Action | str,
    *,
    registry: Registry | None = None,
    key: SigningKey | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    **options: Unpack[DecisionOptions],
) -> Decision:
    """``Gate.decide`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy, key=key) as gate:
        return gate.decide(run, ref_or_id, action, **options)


def wait(
    run: Run,
    ref_or_id: HandoffRef | str,
    *,
    registry: Registry | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    **options: Unpack[WaitOptions],
) -> WaitResult:
    """``Gate.wait`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy) as gate:
        return gate.wait(run, ref_or_id, **options)


async def wait_async(
    run: Run,
    ref_or_id: HandoffRef | str,
    *,
    registry: Registry | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    **options: Unpack[AsyncWaitOptions],
) -> WaitResult:
    """``Gate.wait_async`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy) as gate:
        return await gate.wait_async(run, ref_or_id, **options)


def inspect_in_run(
    run: Run,
    handoff_id: str,
    registry: Registry | None = None,
    *,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
) -> Report:
    """``Gate.inspect`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy) as gate:
        return gate.inspect(run, handoff_id)


def read_decision(run: Run, handoff_id: str, store: StoreSpec | None = None) -> Decision | None:
    """``Gate.read_decision`` on a Gate made for this call."""
    with Gate(store) as gate:
        return gate.read_decision(run, handoff_id)
