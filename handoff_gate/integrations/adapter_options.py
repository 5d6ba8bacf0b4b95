"""The keywords the framework adapters share, written once: two ``TypedDict``s the adapters
take as ``**options``, checked at call time as a plain signature would be
(``gates.vocab.keywords``), so a misspelt one is a ``TypeError``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import TypedDict

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.setup import StoreSpec
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey

Run = str | os.PathLike[str]
#: A policy or a signing key as an object or its file (``None``: the environment's).
PolicySpec = Policy | str | os.PathLike[str] | None
KeySpec = SigningKey | str | os.PathLike[str] | None
#: A deadline an adapter puts on what it submits (``"30m"``, a ``timedelta``).
ExpiresIn = str | timedelta | None


class _Named(TypedDict):
    """What every output adapter names: the phase and the contract (required)."""

    phase: str
    schema_id: str


class HandoffOptions(_Named, total=False):
    """How an output adapter (``pydantic_ai.approval_gate``, ``langgraph.gate_node``)
    submits and waits."""

    timeout: float | None
    registry: Registry | None
    policy: PolicySpec
    store: StoreSpec | None
    expires_in: ExpiresIn


class ReviewOptions(TypedDict, total=False):
    """How a tool-approval adapter reviews a turn's calls (``tool_calls.review``, whose
    keywords these are)."""

    timeout: float | None
    policy: PolicySpec
    store: StoreSpec | None
    key: KeySpec
    withdraw_on_timeout: bool
    expires_in: ExpiresIn
    redeliver: bool
