"""What the app knows about each handoff, and how the list is filtered and ordered.

An entry starts from the file name alone (cheap, so ten thousand rows paint at once) and
is completed when its inspection arrives; its state is always ``gates``'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.view.tool_line import tool_call_line
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState, needs_person

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Decision

#: A handoff across runs: (run directory, handoff id). For a database store the "run
#: directory" is ``Path(run_id)``: a key, never a place on disk (``str()`` gives the id back).
Key = tuple[Path, str]


def key_of(ref: HandoffRef) -> Key:
    """The run as a ``Path``, so runs sort as folders."""
    return (Path(ref.run), ref.id)


#: What changes on disk when a handoff or its decision is touched: (mtime_ns, size, inode).
Stamp = tuple[int, int, int]


class Show(StrEnum):
    """The list filter; ``open`` lists what has no decision yet (pending and blocked), what
    changed after its decision and what has an unusable decision record (nobody can
    decide those, but someone should notice). ``pending`` is the filter's former name,
    still accepted (``--show pending``): the word now means only the state."""

    OPEN = "open"
    REJECTED = "rejected"
    APPROVED = "approved"
    ALL = "all"

    @classmethod
    def _missing_(cls, value: object) -> Show | None:
        return cls.OPEN if value == "pending" else None

    def next(self) -> Show:
        members = list(Show)
        return members[(members.index(self) + 1) % len(members)]


@dataclass(frozen=True, kw_only=True)
class ReviewOptions:
    """How a review runs (``watch``'s options). ``reviewer`` ``None``: the key's approver,
    else ``user@host``; ``poll``: the store's watch must not rely on change events."""

    reviewer: str | None = None
    show: Show = Show.OPEN
    poll: bool = False
    quiet: bool = False
    read_only: bool = False


#: The producer line of an unsigned handoff: "producer unsigned" read as a producer
#: named "unsigned".
UNSIGNED = "none named (unsigned)"


@dataclass(frozen=True, slots=True)
class Trust:
    """What a policy makes of a handoff. ``required`` is 0 without a policy; ``signer`` is
    the producer as shown, ``producer`` only a verified one (who may therefore not decide
    it); ``rule_problem`` says why nobody may decide."""

    required: int = 0
    approvals: tuple[str, ...] = ()
    approvers: tuple[str, ...] = ()
    signer: str = UNSIGNED
    producer: str | None = None
    refused: tuple[str, ...] = ()
    rule_problem: str = ""


NO_TRUST = Trust()


@dataclass(frozen=True, slots=True)
class Label:
    """What a list row shows besides the state; kept when the full report is dropped."""

    from_role: str | None
    to_role: str | None
    schema_id: str | None
    #: ``agent → name(args)  [call id]`` for a tool call (``gates.view.tool_line``).
    tool_call: str | None = None
    #: The handoff's deadline, if it has one (a pending row shows the time left).
    expires_at: str | None = None
    #: Kept so a batch confirmation and decision need no report that was dropped.
    sha256: str = ""
    verdict: str = ""
    warnings: int = 0

    @classmethod
    def of(cls, report: Report) -> Label:
        envelope = report.envelope
        sha256, verdict, warnings = report.sha256, report.verdict.value, len(report.warnings)
        if envelope is None:
            return cls(None, None, report.schema_id, None, None, sha256, verdict, warnings)
        return cls(
            envelope.from_role,
            envelope.to_role,
            envelope.schema_id,
            tool_call_line(report),
            envelope.expires_at,
            sha256,
            verdict,
            warnings,
        )


@dataclass
class Entry:
    """One handoff as the app knows it; ``report`` is kept only for recent ones
    (``entries.HOT_REPORTS``), ``state`` and ``label`` once known."""

    ref: HandoffRef
    stamp: Stamp | None = None
    decision_stamp: Stamp | None = None
    report: Report | None = None
    decision: Decision | None = None
    decision_error: str = ""
    #: Why a ``withdrawn`` or ``expired`` handoff ended (who withdrew it, when it expired).
    ended: str = ""
    #: When an approved tool call was first delivered to a wait (``""``: not yet).
    delivered: str = ""
    state: HandoffState | None = None
    label: Label | None = None
    fresh: bool = False
    notified: bool = False
    #: Under a policy: approvals so far, the producer's signature (``None`` until inspected).
    trust: Trust | None = None
    #: Start times of the live ``wait`` processes on it; ``None``: the store cannot tell.
    waiters: tuple[str, ...] | None = ()
    #: Whether this reviewer can decide it now; set by the screen from each inspection.
    decidable: bool = False
    key: Key = field(init=False)
    run: str = field(init=False)

    def __post_init__(self) -> None:
        # Plain attributes: sorting ten thousand entries reads them constantly.
        self.key = key_of(self.ref)
        self.run = self.key[0].name or self.ref.run

    @property
    def waiting(self) -> bool:
        """Before inspection, a handoff without a decision file counts as needing a person."""
        if self.state is None:
            return self.decision_stamp is None
        return needs_person(self.state)


#: Decided, but someone should look: the bytes changed, or the record is broken.
_NOTICE = frozenset({HandoffState.CHANGED, HandoffState.UNUSABLE})


def placement(entry: Entry, show: Show) -> tuple[bool, bool]:
    """What decides an entry's place in the list."""
    return shown(entry, show), entry.waiting


def shown(entry: Entry, show: Show) -> bool:
    if show is Show.ALL:
        return True
    if show is Show.OPEN:
        return entry.waiting or entry.state in _NOTICE
    if show is Show.REJECTED:
        return entry.state is HandoffState.REJECTED
    return entry.state is HandoffState.APPROVED


def order(entry: Entry) -> tuple[bool, int, str, int]:
    """Sorted in reverse: waiting first, then newest file, then run and sequence."""
    mtime = entry.stamp[0] if entry.stamp else 0
    return (entry.waiting, mtime, entry.run, entry.ref.seq)


def matches(entry: Entry, text: str) -> bool:
    """Whether ``text`` (any case) is in the row's run, id, phase, producer, consumer,
    contract or tool call, or, while its report is loaded, in the payload's own text."""
    if not text:
        return True
    wanted = text.casefold()
    label = entry.label
    known = [entry.run, entry.ref.id, entry.ref.phase]
    if label is not None:
        known += [label.from_role or "", label.to_role or "", label.schema_id or ""]
        known.append(label.tool_call or "")
    envelope = entry.report.envelope if entry.report is not None else None
    if envelope is not None and envelope.raw is not None:
        known.append(envelope.raw)
    return any(wanted in part.casefold() for part in known)


def visible_entries(entries: dict[Key, Entry], show: Show, text: str = "") -> list[Entry]:
    listed = (e for e in entries.values() if shown(e, show) and matches(e, text))
    return sorted(listed, key=order, reverse=True)


def previous_same_phase(entries: dict[Key, Entry], entry: Entry) -> Entry | None:
    """The latest earlier handoff of the same phase in the same run (what ``d`` diffs with)."""
    earlier = [
        e
        for e in entries.values()
        if e.key[0] == entry.key[0] and e.ref.phase == entry.ref.phase and e.ref.seq < entry.ref.seq
    ]
    return max(earlier, key=lambda e: e.ref.seq, default=None)
