"""The look back's sums over handoffs' ``Fact``s, and their one JSON form.

Every count names every key (zero included), so a script reads the same keys whatever
the store holds. Times are ``statistics.quantiles(method="inclusive")`` (numpy's default).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from handoff_gate.gates.stats.facts import Decider, Fact
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.deadline import duration as duration  # its home: time words
from handoff_gate.gates.vocab.states import HandoffState

#: How many of the most common reject reasons a look back names, unless asked otherwise.
TOP_REASONS = 10
#: The category key of a reject that named none.
NO_CATEGORY = "none"


@dataclass(frozen=True, slots=True)
class DeciderCount:
    """One decider's records that settled handoffs, by action."""

    decider: Decider
    approved: int = 0
    rejected: int = 0

    @property
    def total(self) -> int:
        return self.approved + self.rejected


@dataclass(frozen=True, slots=True)
class Stats:
    """The figures. ``handoffs`` counts every handoff looked at (after ``since``);
    ``undated`` those whose submit time cannot be read (left out when ``since`` is set);
    ``unreadable_runs`` the runs whose handoffs could not be listed."""

    handoffs: int = 0
    since: datetime | None = None
    by_outcome: dict[str, int] = field(default_factory=dict)
    by_decider: tuple[DeciderCount, ...] = ()
    by_phase: dict[str, dict[str, int]] = field(default_factory=dict)
    by_tool: dict[str, dict[str, int]] = field(default_factory=dict)
    by_day: dict[str, dict[str, int]] = field(default_factory=dict)
    reject_categories: dict[str, int] = field(default_factory=dict)
    top_reasons: tuple[tuple[str, int], ...] = ()
    decided_in: tuple[float, ...] = ()
    undated: int = 0
    unreadable_runs: int = 0

    @property
    def median_seconds(self) -> float | None:
        return quantile(self.decided_in, 0.5)

    @property
    def p95_seconds(self) -> float | None:
        return quantile(self.decided_in, 0.95)

    def times_line(self) -> str:
        """How long decisions took, in the words ``handoff-gate stats`` and the stats
        screen both print."""
        if self.median_seconds is None or self.p95_seconds is None:
            return "time from submit to decision: nothing decided yet"
        return (
            f"time from submit to decision ({len(self.decided_in)} decided): "
            f"median {duration(self.median_seconds)}, p95 {duration(self.p95_seconds)}"
        )


def normal_reason(text: str) -> str:
    """A reason as it is counted: whitespace runs made one space, case folded."""
    return " ".join(text.split()).casefold()


def quantile(values: Iterable[float], q: float) -> float | None:
    """The ``q`` quantile (0 < q < 1) of ``values``, linear between ranks; ``None`` if empty."""
    ordered = sorted(values)
    if not ordered:
        return None
    if len(ordered) == 1:
        return ordered[0]
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return cuts[round(q * 100) - 1]


def _outcomes(states: Iterable[HandoffState]) -> dict[str, int]:
    counted = Counter(states)
    row = {state.value: counted[state] for state in HandoffState}
    return {"total": sum(counted.values()), **row}


def summarise(
    facts: Iterable[Fact],
    *,
    since: datetime | None = None,
    top: int = TOP_REASONS,
    unreadable_runs: int = 0,
) -> Stats:
    """The figures over ``facts`` submitted at or after ``since`` (all, without it; a
    ``since`` without a zone is UTC, as ``--since`` reads it)."""
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    kept: list[Fact] = []
    undated = 0
    for fact in facts:
        if fact.submitted is None:
            undated += 1
            if since is not None:
                continue  # when it was submitted cannot be told: never counted as recent
        elif since is not None and fact.submitted < since:
            continue
        kept.append(fact)
    return Stats(
        handoffs=len(kept),
        since=since,
        by_outcome={k: v for k, v in _outcomes(f.state for f in kept).items() if k != "total"},
        by_decider=_deciders(kept),
        by_phase=_grouped(kept, lambda f: f.phase),
        by_tool=_grouped(kept, lambda f: f.tool),
        by_day=_grouped(kept, lambda f: f.submitted.date().isoformat() if f.submitted else None),
        reject_categories=_categories(kept),
        top_reasons=_reasons(kept, top),
        decided_in=tuple(f.seconds for f in kept if f.seconds is not None),
        undated=undated,
        unreadable_runs=unreadable_runs,
    )


def _grouped(facts: list[Fact], key: Any) -> dict[str, dict[str, int]]:
    groups: dict[str, list[HandoffState]] = {}
    for fact in facts:
        name = key(fact)
        if name is not None:
            groups.setdefault(name, []).append(fact.state)
    return {name: _outcomes(groups[name]) for name in sorted(groups)}


def _deciders(facts: list[Fact]) -> tuple[DeciderCount, ...]:
    approved: Counter[Decider] = Counter()
    rejected: Counter[Decider] = Counter()
    for fact in facts:
        for decider, action in fact.decided_by:
            (approved if action is Action.APPROVE else rejected)[decider] += 1
    counts = [DeciderCount(d, approved[d], rejected[d]) for d in approved.keys() | rejected.keys()]
    return tuple(sorted(counts, key=lambda c: (-c.total, c.decider.kind, c.decider.name)))


def _categories(facts: list[Fact]) -> dict[str, int]:
    rejects = [f for f in facts if f.state is HandoffState.REJECTED]
    counted = Counter(f.category or NO_CATEGORY for f in rejects)
    return {name: counted[name] for name in [*(c.value for c in Category), NO_CATEGORY]}


def _reasons(facts: list[Fact], top: int) -> tuple[tuple[str, int], ...]:
    """The ``top`` most common reject reasons, most common first, ties by text."""
    counted = Counter(
        normal_reason(f.reason)
        for f in facts
        if f.state is HandoffState.REJECTED and f.reason and f.reason.strip()
    )
    ranked = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
    return tuple(ranked[: max(top, 0)])


def stats_json(stats: Stats) -> dict[str, Any]:
    """The ``stats --json`` object (its keys are documented in docs/protocol.md)."""
    return {
        "handoffs": stats.handoffs,
        "since": stats.since.isoformat() if stats.since is not None else None,
        "by_outcome": stats.by_outcome,
        "by_decider": [
            {
                "kind": c.decider.kind,
                "name": c.decider.name,
                "approved": c.approved,
                "rejected": c.rejected,
                "total": c.total,
            }
            for c in stats.by_decider
        ],
        "by_phase": stats.by_phase,
        "by_tool": stats.by_tool,
        "by_day": stats.by_day,
        "reject_categories": stats.reject_categories,
        "top_reasons": [{"reason": text, "count": n} for text, n in stats.top_reasons],
        "time_to_decision": {
            "decided": len(stats.decided_in),
            "median_seconds": stats.median_seconds,
            "p95_seconds": stats.p95_seconds,
        },
        "undated": stats.undated,
        "unreadable_runs": stats.unreadable_runs,
    }
