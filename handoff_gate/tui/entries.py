"""The app's book of handoffs: entries folded from listings and inspections.

Only recently viewed or inspected entries keep their parsed report (``HOT_REPORTS``): ten
thousand parsed payloads would make every garbage collection pause the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.tui.model import Entry, Key, Label
from handoff_gate.tui.scan import Inspection, RunListing

#: Parsed reports kept in memory (the rest keep only their state and list label).
HOT_REPORTS = 64


@dataclass
class Merged:
    """What a listing changed; ``selected_changed``: the selected handoff's waiters,
    which its detail shows."""

    stale: list[Key] = field(default_factory=list)
    inspect: list[HandoffRef] = field(default_factory=list)
    selected_changed: bool = False
    #: The longest id among the new entries (ids keep their full width in the list).
    id_width: int = 0


class Entries:
    def __init__(self) -> None:
        self.by_key: dict[Key, Entry] = {}
        self.runs: dict[Path, set[str]] = {}
        #: Keys that arrived after the first listing, not yet looked at by the screen.
        self.arrived: list[Key] = []
        self._hot: dict[Key, None] = {}
        #: Keys of entries without a state yet: the screen asks after every batch of
        #: inspections whether any is left, which a scan of ten thousand would make slow.
        self._uninspected: set[Key] = set()
        #: The stored contracts each run's last complete listing named.
        self._contracts: dict[Path, tuple[str, ...]] = {}

    @property
    def all_inspected(self) -> bool:
        return not self._uninspected

    def merge(self, listing: RunListing, initial: bool, selected: object) -> Merged:
        """Fold one run's listing in; ``selected`` is the key the cursor is on."""
        merged = Merged()
        run_dir = listing.run_dir
        known = self.runs.setdefault(run_dir, set())
        present = {ref.id for ref in listing.refs}
        gone = (known - present) if listing.complete else listing.removed
        for handoff_id in gone:
            self.by_key.pop((run_dir, handoff_id), None)
            self._uninspected.discard((run_dir, handoff_id))
            merged.stale.append((run_dir, handoff_id))
        self.runs[run_dir] = present if listing.complete else (known - gone) | present
        for ref in listing.refs:
            key = (run_dir, ref.id)
            stamp = listing.stamps[ref.id]
            decision_stamp = listing.decision_stamps.get(ref.id)
            entry = self.by_key.get(key)
            waiters = None if listing.waiters is None else listing.waiters.get(ref.id, ())
            if entry is None:
                entry = Entry(ref, stamp, decision_stamp, fresh=not initial, waiters=waiters)
                self.by_key[key] = entry
                self._uninspected.add(key)
                if not initial:
                    self.arrived.append(key)
                merged.id_width = max(merged.id_width, len(ref.id))
            else:
                if entry.waiters != waiters:
                    entry.waiters = waiters
                    merged.stale.append(key)
                    merged.selected_changed = merged.selected_changed or key == selected
                if (entry.stamp, entry.decision_stamp) == (stamp, decision_stamp):
                    continue
            entry.stamp, entry.decision_stamp = stamp, decision_stamp
            merged.stale.append(key)
            merged.inspect.append(ref)
        self._contracts_changed(listing, merged)
        return merged

    def _contracts_changed(self, listing: RunListing, merged: Merged) -> None:
        """A contract added to the run since the last look: every handoff of the run
        listed unchanged is inspected again (one that named the contract was blocked
        without it). Contracts are added rarely, so a whole run is cheap enough."""
        if listing.contracts is None:
            return
        before = self._contracts.get(listing.run_dir)
        self._contracts[listing.run_dir] = listing.contracts
        if before is None or before == listing.contracts:
            return
        queued = {ref.id for ref in merged.inspect}
        for ref in listing.refs:
            if ref.id not in queued and (listing.run_dir, ref.id) in self.by_key:
                merged.stale.append((listing.run_dir, ref.id))
                merged.inspect.append(ref)

    def forget_run(self, run_dir: Path, initial: bool, selected: object) -> Merged:
        merged = self.merge(RunListing(run_dir, (), {}, {}), initial, selected)
        self.runs.pop(run_dir, None)
        self._contracts.pop(run_dir, None)
        return merged

    def fold(self, result: Inspection, selected: object) -> None:
        """Complete an entry from its inspection (unless gone meanwhile); the report object
        is kept when the bytes are the same (views hold on to it)."""
        entry = self.by_key.get(result.key)
        if entry is None:
            return
        old = entry.report
        # The same bytes with the same findings: the same report (a contract that arrived
        # since changes the findings of the same bytes, and then the new one counts).
        same = (
            old is not None
            and old.sha256 == result.report.sha256
            and old.findings == result.report.findings
        )
        entry.report = old if same else result.report
        entry.label = Label.of(result.report)
        self.keep_report(entry, selected)
        entry.decision, entry.decision_error = result.decision, result.decision_error
        entry.state = result.state
        entry.ended = result.ended
        entry.delivered = result.delivered
        self._uninspected.discard(result.key)
        entry.trust = result.trust

    def keep_report(self, entry: Entry, selected: object) -> None:
        """Drop the least recently used report beyond the limit (never the selected one's)."""
        self._hot.pop(entry.key, None)
        self._hot[entry.key] = None
        while len(self._hot) > HOT_REPORTS:
            key = next(iter(self._hot))
            del self._hot[key]
            old = self.by_key.get(key)
            if key == selected:
                self._hot[key] = None
            elif old is not None:
                old.report = None
