"""Batch decisions: many handoffs decided in one call, each exactly as if decided alone.

Nothing about the batch may weaken a single decision: every item goes through
``decisions.decide`` on its own, bound to its own sha256; an undecidable item is refused
by itself, and the others are written regardless of where it stood in the list.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.decide.decisions import DecisionRefused, DecisionRequest, decide
from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
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
    context: GateContext,
    run: str | os.PathLike[str],
    items: Iterable[BatchItem],
    request: DecisionRequest,
    *,
    seen: Mapping[str, Report] | None = None,
) -> list[BatchResult]:
    """Decide every item, in order; one ``BatchResult`` per item. ``seen``: the reports
    the caller chose the items by (by id), which stand while the bytes keep their sha256.
    A refusal or a malformed item is that item's alone; what no item could survive (an
    unknown action or category, a key without a policy, an edit) raises before anything
    is written.
    """
    request = replace(request, action=Action(request.action))
    if request.category is not None:
        request = replace(request, category=Category(request.category))
    if context.key is not None and context.policy is None:
        raise ValueError("--key needs --policy: the policy's allowed_signers names the signer")
    if request.edited_payload is not None:
        raise ValueError("a batch decides the producers' bytes; an edit is decided alone")
    where = os.fspath(run)
    results: list[BatchResult] = []
    for ref_or_id, sha256 in items:
        ref = HandoffRef(where, handoff_id_of(ref_or_id), sha256)
        one = replace(request, expected_sha256=sha256)
        try:
            decision = decide(context, where, ref.id, one, seen=(seen or {}).get(ref.id))
        except (DecisionRefused, ValueError) as exc:
            results.append(BatchResult(ref, refused=str(exc)))
        else:
            results.append(BatchResult(ref, decision))
    return results


def open_handoffs(
    context: GateContext,
    run: str | os.PathLike[str],
    action: Action | str,
    *,
    phase: str | None = None,
    schema_id: str | None = None,
) -> list[Standing]:
    """The standings of the run's handoffs that ``action`` may be taken on now, each
    ``ref`` carrying the sha256 it was seen with, so the decision binds to those bytes."""
    where, store = os.fspath(run), context.store
    wanted = {HandoffState.PENDING}
    if Action(action) is Action.REJECT:
        wanted.add(HandoffState.BLOCKED)
    found: list[Standing] = []
    for handoff_id in store.handoff_ids(where):
        ref = HandoffRef(where, handoff_id)
        if phase is not None and ref.phase != phase:
            continue
        stood = standing(store, ref, context.contracts, policy=context.policy)
        envelope = stood.report.envelope
        if schema_id is not None and (envelope is None or envelope.schema_id != schema_id):
            continue
        if stood.state in wanted and stood.report.sha256:
            found.append(replace(stood, ref=ref._replace(sha256=stood.report.sha256)))
    return found
