"""The look back over a whole store: every run, every handoff, each through ``standing``.

Through the ``RunStore`` seam alone, so a run folder and a database give the same
figures; one bad run is told and counted, and must not hide the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.standing.standing import standing
from handoff_gate.gates.stats.facts import Fact, fact_of
from handoff_gate.gates.stats.figures import TOP_REASONS, Stats, summarise
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.safe_text import os_reason

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


def look_back(
    store: RunStore,
    registry: Registry,
    *,
    policy: Policy | None = None,
    since: datetime | None = None,
    top: int = TOP_REASONS,
    on_problem: Callable[[str], None] | None = None,
) -> Stats:
    """The figures over every handoff in ``store`` submitted at or after ``since``."""
    unreadable: list[str] = []

    def problem(run: str, exc: Exception) -> None:
        unreadable.append(run)
        if on_problem is not None:
            on_problem(f"cannot read the run {run}: {os_reason(exc)}")

    facts = _facts(store, registry, policy, problem)
    return summarise(list(facts), since=since, top=top, unreadable_runs=len(unreadable))


def _facts(
    store: RunStore,
    registry: Registry,
    policy: Policy | None,
    problem: Callable[[str, Exception], None],
) -> Iterator[Fact]:
    for run in store.runs():
        try:
            ids = store.handoff_ids(run)
        except (OSError, ValueError) as exc:
            problem(run, exc)
            continue
        for handoff_id in ids:
            yield fact_of(standing(store, HandoffRef(run, handoff_id), registry, policy=policy))
