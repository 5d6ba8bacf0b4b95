"""``audit --verify`` on tool-call deliveries: each approval delivered once, as logged.

A delivery record is written with its ``wait_returned`` event (``delivered: true``), so
the two must agree: an event without its record means a record removed, and the
approval could be delivered again unseen.
"""

from __future__ import annotations

import json
from typing import Any

from handoff_gate.gates.store.base import RunStore

Logged = list[tuple[int, dict[str, Any]]]


def delivery_problems(store: RunStore, run: str, ids: list[str], returned: Logged) -> list[str]:
    """The problems of the run's deliveries, one line each; ``returned`` is the log's
    ``wait_returned`` events with their line index."""
    first: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    again: dict[str, list[int]] = {}
    for index, event in returned:
        handoff = str(event.get("handoff"))
        if event.get("delivered") is True:
            first.setdefault(handoff, []).append((index, event))
        if event.get("redelivered") is True:
            again.setdefault(handoff, []).append(index)
    problems: list[str] = []
    for handoff_id in ids:
        try:
            record = store.delivery_record(run, handoff_id)
        except (OSError, ValueError) as exc:
            problems.append(f"the delivery of {handoff_id} cannot be read: {exc}")
            continue
        logged = first.pop(handoff_id, [])
        problems += _one(handoff_id, record, logged, again.pop(handoff_id, []))
    for handoff_id in sorted(set(first) | set(again)):
        problems.append(f"delivery event for {handoff_id} but no such handoff")
    return problems


def _one(handoff_id: str, record: bytes | None, logged: Logged, again: list[int]) -> list[str]:
    if record is None:
        if logged or again:
            return [
                f"{handoff_id} was delivered but has no delivery record (removed: its "
                "approval could be delivered again)"
            ]
        return []
    if not logged:
        return [f"{handoff_id} has a delivery record but no delivery event"]
    problems = []
    if len(logged) > 1:
        problems.append(f"{handoff_id} was delivered {len(logged)} times without a redelivery")
    index, event = logged[0]
    if event.get("outcome") != "approved":
        problems.append(f"{handoff_id}'s delivery event is not an approval")
    if _at(record) != event.get("at"):
        problems.append(f"{handoff_id}'s delivery record does not match its event")
    if any(i < index for i in again):
        problems.append(f"{handoff_id} was redelivered before it was delivered")
    return problems


def _at(record: bytes) -> Any:
    try:
        value = json.loads(record)
    except ValueError:
        return None
    return value.get("at") if isinstance(value, dict) else None
