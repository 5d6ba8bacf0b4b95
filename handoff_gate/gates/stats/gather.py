"""The look back over a whole store: every run, every handoff, each through ``standing``.

Through the ``RunStore`` seam alone, so a run folder and a database give the same
figures; one bad run is told and counted, and must not hide the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.stats.facts import fact_of
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
    facts = [fact_of(s) for s in standings(store, registry, policy, unreadable, on_problem)]
    return summarise(facts, since=since, top=top, unreadable_runs=len(unreadable))


def standings(
    store: RunStore,
    registry: Registry,
    policy: Policy | None,
    unreadable: list[str],
    on_problem: Callable[[str], None] | None,
) -> Iterator[Standing]:
    """Every handoff's standing, run by run; a run whose handoffs cannot be listed is
    added to ``unreadable`` and told to ``on_problem``."""
    for run in store.runs():
        try:
            ids = store.handoff_ids(run)
        except (OSError, ValueError) as exc:
            unreadable.append(run)
            if on_problem is not None:
                on_problem(f"cannot read the run {run}: {os_reason(exc)}")
            continue
        for handoff_id in ids:
            yield standing(store, HandoffRef(run, handoff_id), registry, policy=policy)
