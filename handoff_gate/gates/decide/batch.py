"""Batch decisions: many handoffs decided in one call, each exactly as if decided alone.

A reviewer fanning out twenty branches wants one gesture, but nothing about the batch may
weaken a single decision: every item goes through ``decisions.decide`` on its own, bound
to its own sha256, signed with the key when there is one and logged on its own. A
blocked, changed, expired or otherwise undecidable item is refused by itself (and its
refusal logged), and the others are written regardless of where it stood in the list.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.decide.decisions import DecisionRefused, decide
from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.gates.vocab.report import Report

#: One item of a batch: the handoff (a reference or an id) and the sha256 it must have.
BatchItem = tuple[HandoffRef | str, str]


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What became of one item: its ``decision`` when written, else why it was ``refused``."""

    ref: HandoffRef
    decision: Decision | None = None
    refused: str = ""

    @property
    def written(self) -> bool:
        return self.decision is not None


def decide_many(
    store: RunStore,
    run: str | os.PathLike[str],
    items: Iterable[BatchItem],
    action: Action | str,
    *,
    registry: Registry,
    reason: str | None = None,
    category: Category | str | None = None,
    reviewer: str | None = None,
    key: SigningKey | None = None,
    policy: Policy | None = None,
    on_warning: Callable[[str], None] | None = None,
    seen: Mapping[str, Report] | None = None,
) -> list[BatchResult]:
    """Decide every item, in order; one ``BatchResult`` per item.

    ``seen``: reports the caller made while choosing the items (``open_handoffs``), by
    handoff id; an item whose bytes still have that report's sha256 is not inspected
    again, so a batch inspects each handoff once.

    A refusal (``DecisionRefused``) or a malformed item (``ValueError``: a bad id, a
    phase the policy has no rule for) is that item's alone. What no item could survive
    (an unknown action or category, a key without a policy) raises before anything is
    written.
    """
    action = Action(action)
    category = Category(category) if category is not None else None
    if key is not None and policy is None:
        raise ValueError("--key needs --policy: the policy's allowed_signers names the signer")
    where = os.fspath(run)
    results: list[BatchResult] = []
    for ref_or_id, sha256 in items:
        ref = HandoffRef(where, handoff_id_of(ref_or_id), sha256)
        try:
            decision = decide(
                store,
                where,
                ref.id,
                action,
                registry=registry,
                reason=reason,
                category=category,
                reviewer=reviewer,
                expected_sha256=sha256,
                key=key,
                policy=policy,
                on_warning=on_warning,
                seen=seen.get(ref.id) if seen is not None else None,
            )
        except (DecisionRefused, ValueError) as exc:
            results.append(BatchResult(ref, refused=str(exc)))
        else:
            results.append(BatchResult(ref, decision))
    return results


def open_handoffs(
    store: RunStore,
    run: str | os.PathLike[str],
    action: Action | str,
    *,
    registry: Registry,
    policy: Policy | None = None,
    phase: str | None = None,
    schema_id: str | None = None,
) -> list[Standing]:
    """The standings of the run's handoffs that ``action`` may be taken on now, each
    ``ref`` carrying the sha256 it was seen with, so the decision binds to those bytes:
    pending ones to approve, pending and blocked ones to reject. ``phase`` and
    ``schema_id`` narrow the selection. Their reports are ``decide_many``'s ``seen``."""
    where = os.fspath(run)
    wanted = {HandoffState.PENDING}
    if Action(action) is Action.REJECT:
        wanted.add(HandoffState.BLOCKED)
    found: list[Standing] = []
    for handoff_id in store.handoff_ids(where):
        ref = HandoffRef(where, handoff_id)
        if phase is not None and ref.phase != phase:
            continue
        stood = standing(store, ref, registry, policy=policy)
        envelope = stood.report.envelope
        if schema_id is not None and (envelope is None or envelope.schema_id != schema_id):
            continue
        if stood.state in wanted and stood.report.sha256:
            found.append(replace(stood, ref=ref._replace(sha256=stood.report.sha256)))
    return found
