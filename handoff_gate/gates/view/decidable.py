"""Whether the reviewer at hand can decide a handoff now: what a front end leads them to.

A review front end counts these ("to decide N"), opens on the oldest of them and steps
between them; everything else stays listed but is not where the work is. The rule is
policy, so it lives here and not in a front end: a handoff is decidable now when it has
no decision yet, its verdict is approvable (a blocked one can only be rejected, and that
is not the work waiting), and nothing refuses this reviewer: under a policy, the key must
sign for an approver of the phase, must not have produced the handoff and must not have
approved it already. That last part is worked out by the deciding code, which already
says it to refuse a decision (``refusal``); one rule, one place that answers it.
"""

from __future__ import annotations

from handoff_gate.gates.vocab.states import HandoffState


def decidable_now(state: HandoffState | None, refusal: str | None) -> bool:
    """Whether a handoff in ``state`` is one this reviewer can decide now.

    ``state`` is ``None`` while the handoff is not inspected yet (not decidable: nobody
    knows its verdict). ``refusal`` is why deciding it would be refused for this reviewer
    (a policy's word on the key), empty or ``None`` when nothing refuses it.
    """
    return state is HandoffState.PENDING and not refusal
