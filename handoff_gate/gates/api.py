"""The module functions of ``handoff_gate``: each makes a ``Gate`` for one call.

As ``httpx.get`` wraps a ``Client``, ``submit``, ``wait``, ``decide``... wrap a ``Gate``
built from their ``store``, ``registry``, ``policy`` and ``key`` arguments (each ``None``:
the environment's, as ``Gate`` reads it) and closed when the call returns, so a database
connection never outlives the call. A run is as the Gate's store addresses it: without a
store, a path such as ``"runs/job-17"``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, Unpack

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.deliver.pickup import WaitResult, print_refusal
from handoff_gate.gates.gate import Gate, Reporter
from handoff_gate.gates.setup import StoreSpec
from handoff_gate.gates.standing.edits import EditedPayload
from handoff_gate.gates.submit.submit import About, Payload
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report

Run = str | os.PathLike[str]


def submit(
    run: Run,
    payload: Payload,
    *,
    phase: str,
    schema_id: str,
    idempotency_key: str | None = None,
    registry: Registry | None = None,
    allow_unknown_schema: bool = False,
    store: StoreSpec | None = None,
    on_warning: Reporter | None = None,
    key: SigningKey | None = None,
    signer: str | None = None,
    json_schema: Mapping[str, Any] | None = None,
    expires_in: timedelta | str | None = None,
    expires_at: datetime | str | None = None,
    **about: Unpack[About],
) -> HandoffRef:
    """``Gate.submit`` on a Gate made for this call."""
    with Gate(store, contracts=registry, key=key) as gate:
        return gate.submit(
            run,
            payload,
            phase=phase,
            schema_id=schema_id,
            idempotency_key=idempotency_key,
            allow_unknown_schema=allow_unknown_schema,
            signer=signer,
            on_warning=on_warning,
            json_schema=json_schema,
            expires_in=expires_in,
            expires_at=expires_at,
            **about,
        )


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
    reason: str | None = None,
    category: Category | str | None = None,
    reviewer: str | None = None,
    registry: Registry | None = None,
    expected_sha256: str | None = None,
    key: SigningKey | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    on_warning: Reporter | None = None,
    edited_payload: EditedPayload | None = None,
) -> Decision:
    """``Gate.decide`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy, key=key) as gate:
        return gate.decide(
            run,
            ref_or_id,
            action,
            reason=reason,
            category=category,
            reviewer=reviewer,
            expected_sha256=expected_sha256,
            on_warning=on_warning,
            edited_payload=edited_payload,
        )


def wait(
    run: Run,
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    stop_event: threading.Event | None = None,
    on_block: Callable[[Report], None] | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    on_refused: Reporter = print_refusal,
    redeliver: bool = False,
) -> WaitResult:
    """``Gate.wait`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy) as gate:
        return gate.wait(
            run,
            ref_or_id,
            timeout=timeout,
            poll=poll,
            stop_event=stop_event,
            on_block=on_block,
            on_refused=on_refused,
            redeliver=redeliver,
        )


async def wait_async(
    run: Run,
    ref_or_id: HandoffRef | str,
    *,
    timeout: float | None = None,
    registry: Registry | None = None,
    poll: bool = False,
    on_block: Callable[[Report], None] | None = None,
    policy: Policy | None = None,
    store: StoreSpec | None = None,
    on_refused: Reporter = print_refusal,
    redeliver: bool = False,
) -> WaitResult:
    """``Gate.wait_async`` on a Gate made for this call."""
    with Gate(store, contracts=registry, policy=policy) as gate:
        return await gate.wait_async(
            run,
            ref_or_id,
            timeout=timeout,
            poll=poll,
            on_block=on_block,
            on_refused=on_refused,
            redeliver=redeliver,
        )


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
