"""The run's append-only audit log: one JSON object a line, hash-chained.

Each line carries ``prev``, the sha256 of the previous line's bytes (``GENESIS`` for
the first), so deleting, reordering or editing a line breaks the chain where it
happened. The store keeps the chain linear across processes (and hosts, for a database).
Only bookkeeping goes in: ids, hashes, codes, actions, reviewers,
outcomes. Payload text and secrets never do.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import AUDIT_FILE as AUDIT_FILE
from handoff_gate.gates.store.log_chain import GENESIS, line_hash
from handoff_gate.gates.store.select import store_for
from handoff_gate.gates.vocab.safe_text import visible


class Event(StrEnum):
    """Every event name the log can hold; scripts match on them exactly."""

    HANDOFF_SUBMITTED = "handoff_submitted"
    DECISION_WRITTEN = "decision_written"
    DECISION_REFUSED = "decision_refused"
    WAIT_RETURNED = "wait_returned"


def now_iso() -> str:
    """The current UTC time, ISO-8601 with milliseconds and a ``Z`` suffix."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def append(
    run: str | os.PathLike[str], event: Event, *, store: RunStore | None = None, **fields: Any
) -> dict[str, Any]:
    """Append one event to the run's log and return it as written."""
    record = {"event": event.value, "at": now_iso(), **fields}
    return (store or store_for()).append_event(os.fspath(run), record)


def _read_log(run: str | os.PathLike[str], store: RunStore | None = None) -> bytes:
    return (store or store_for()).log_bytes(os.fspath(run))


def read_events(run: str | os.PathLike[str], store: RunStore | None = None) -> list[dict[str, Any]]:
    """All parseable events in order; unparseable lines are skipped (see ``verify_chain``)."""
    events = []
    for raw in _read_log(run, store).splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def verify_chain(run: str | os.PathLike[str], store: RunStore | None = None) -> list[str]:
    """Every break in the log as a readable problem; an empty list means intact."""
    problems: list[str] = []
    expected = GENESIS
    known = {e.value for e in Event}
    for number, raw in enumerate(_read_log(run, store).splitlines(), start=1):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            problems.append(f"line {number}: not a JSON object")
        else:
            if value.get("prev") != expected:
                problems.append(f"line {number}: prev does not match the line before it")
            if value.get("event") not in known:
                problems.append(f"line {number}: unknown event {value.get('event')!r}")
        expected = line_hash(raw)
    return problems


def audit_events(
    run: str | os.PathLike[str], store: RunStore | None = None
) -> list[dict[str, Any]]:
    """The run's events in order, as ``audit --json`` prints them (one object a line)."""
    return read_events(run, store)


def _field(event: dict[str, Any], name: str) -> str:
    value = event.get(name)
    return "" if value is None else visible(str(value)).replace("\n", " ").replace("\t", " ")


def audit_lines(events: list[dict[str, Any]]) -> list[str]:
    """One readable line per event: when, what, which handoff, who, and why.

    Every value comes from a file anyone with write access could have edited, so each
    goes through the sanitiser before it can reach a terminal.
    """
    lines = []
    for event in events:
        who = _field(event, "principal") or _field(event, "reviewer")
        what = _field(event, "action") or _field(event, "outcome") or _field(event, "schema")
        why = _field(event, "reason") or _field(event, "why") or _field(event, "category")
        parts = [_field(event, "at"), _field(event, "event"), _field(event, "handoff")]
        parts += [f"by {who}" if who else "", what, f"({why})" if why else ""]
        lines.append("  ".join(part for part in parts if part))
    return lines
