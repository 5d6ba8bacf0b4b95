"""``HandoffRef``: how every stage names one handoff, wherever its run lives.

A run and an id, plus the sha256 of the submitted bytes when it comes from ``submit``.
It never holds a path: only the store knows how to reach a run, so a reference made on
one host means the same handoff on another.
"""

from __future__ import annotations

from typing import NamedTuple

from handoff_gate.gates.vocab.ids import validate_id


class HandoffRef(NamedTuple):
    """One handoff: ``run`` as its store addresses it, its ``id``, and (from ``submit``)
    the ``sha256`` of the envelope bytes stored, which a decision made with this
    reference must match. Empty ``sha256``: not known (a reference built from an id)."""

    run: str
    id: str
    sha256: str = ""

    @classmethod
    def of(cls, run: str, handoff_id: str, sha256: str = "") -> HandoffRef:
        """A reference with its id checked (``UnsafePathError`` for a malformed one)."""
        return cls(run, validate_id(handoff_id), sha256)

    @property
    def seq(self) -> int:
        """The sequence number the id starts with."""
        return int(self.id.split("-", 1)[0])

    @property
    def phase(self) -> str:
        """The phase the id names after its number."""
        return self.id.split("-", 1)[1]


def handoff_id_of(ref_or_id: HandoffRef | str) -> str:
    """The id a caller named, by reference or as a string; ``TypeError`` for anything else."""
    handoff_id = ref_or_id.id if isinstance(ref_or_id, HandoffRef) else ref_or_id
    if not isinstance(handoff_id, str):
        raise TypeError(f"expected a HandoffRef or an id string, got {type(ref_or_id)}")
    return handoff_id
