"""Whether the reviewer at hand can decide a handoff now: what a front end counts ("to
decide N") and leads them to. The rule is policy, so it lives here, not in a front end.
"""

from __future__ import annotations

from handoff_gate.gates.vocab.states import HandoffState


def decidable_now(state: HandoffState | None, refusal: str | None) -> bool:
    """Undecided and approvable (a blocked one can only be rejected: not the work
    waiting), and no ``refusal``: why the deciding code would refuse this reviewer's key.
    ``state`` is ``None`` while the handoff is not inspected yet."""
    return state is HandoffState.PENDING and not refusal
