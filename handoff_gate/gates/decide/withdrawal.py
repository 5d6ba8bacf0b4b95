"""``withdraw``: the pipeline takes back a handoff it will no longer consume.

A pipeline that gave up must not leave a handoff a reviewer may still approve. One
exclusive record, logged with it; on PostgreSQL only the pipeline role may insert it. A
decided handoff cannot be withdrawn: its decision already stands.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.decide.reviewer import default_reviewer
from handoff_gate.gates.standing.ending import Withdrawal
from handoff_gate.gates.standing.standing import standing
from handoff_gate.gates.store.base import RunStore, WithdrawalExists, has_handoff
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.ids import validate_id
from handoff_gate.gates.vocab.safe_text import has_unsafe
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.trust.policy import Policy

#: The states a handoff may be withdrawn from: nobody has decided it yet.
WITHDRAWABLE = frozenset({HandoffState.PENDING, HandoffState.BLOCKED, HandoffState.EXPIRED})


class WithdrawRefused(Exception):
    """A withdrawal that must not be written; the message is one line, fit for stderr."""


def withdraw(
    store: RunStore,
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    *,
    registry: Registry,
    reason: str | None = None,
    by: str | None = None,
    policy: Policy | None = None,
) -> Withdrawal:
    """Withdraw an undecided handoff; ``WithdrawRefused`` (nothing written) when it is
    missing, already withdrawn, or decided (without a policy any signed record counts).
    ``by`` defaults to ``user@host``; ``ValueError`` for a malformed id, name or reason."""
    where = os.fspath(run)
    handoff_id = validate_id(handoff_id_of(ref_or_id))
    who = (by if by is not None else default_reviewer()).strip()
    reason = reason.strip() if reason is not None else None
    for name, text, limit in (("name", who, 200), ("reason", reason or "", 2000)):
        if len(text) > limit or has_unsafe(text) or (name == "name" and not text):
            raise ValueError(f"the withdrawing {name} must be 1-{limit} printable characters")
    if not has_handoff(store, where, handoff_id):
        raise WithdrawRefused(f"no handoff {handoff_id} in {where}")
    now = standing(store, HandoffRef(where, handoff_id), registry, policy=policy)
    if now.state is HandoffState.WITHDRAWN:
        raise WithdrawRefused(f"{handoff_id} is already withdrawn")
    if now.state not in WITHDRAWABLE:
        raise WithdrawRefused(f"{handoff_id} is already {now.state.value}; it cannot be withdrawn")
    signed = [slot for slot in store.decision_records(where, handoff_id) if slot is not None]
    if policy is None and signed:  # records only a policy can judge: never withdraw over them
        raise WithdrawRefused(
            f"{handoff_id} has signed decisions ({', '.join(sorted(signed))}); "
            "it cannot be withdrawn"
        )
    record = Withdrawal(
        handoff=handoff_id,
        run=store.run_name(where),
        by=who,
        withdrawn_at=audit.now_iso(),
        reason=reason or None,
    )
    event = {
        "event": audit.Event.HANDOFF_WITHDRAWN.value,
        "at": record.withdrawn_at,
        "handoff": handoff_id,
        "by": who,
        **({"reason": record.reason} if record.reason else {}),
    }
    data = (record.model_dump_json(exclude_none=True, indent=2) + "\n").encode()
    try:
        store.create_withdrawal(where, handoff_id, data, event)
    except WithdrawalExists:
        raise WithdrawRefused(f"{handoff_id} is already withdrawn") from None
    return record
