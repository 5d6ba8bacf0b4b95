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
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.store.log_chain import GENESIS
from handoff_gate.gates.vocab.limits import MAX_LOG_LINE
from handoff_gate.gates.vocab.safe_text import visible

if TYPE_CHECKING:  # the writers (the hook's fast path among them) never read the log
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.store.log_lines import LogLine


class Event(StrEnum):
    """Every event name the log can hold; scripts match on them exactly."""

    HANDOFF_SUBMITTED = "handoff_submitted"
    DECISION_WRITTEN = "decision_written"
    DECISION_REFUSED = "decision_refused"
    WAIT_RETURNED = "wait_returned"
    HANDOFF_WITHDRAWN = "handoff_withdrawn"


_KNOWN = frozenset(e.value for e in Event)


def now_iso() -> str:
    """The current UTC time, ISO-8601 with milliseconds and a ``Z`` suffix."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def append(
    run: str | os.PathLike[str], event: Event, *, store: RunStore, **fields: Any
) -> dict[str, Any]:
    """Append one event to the run's log and return it as written."""
    record = {"event": event.value, "at": now_iso(), **fields}
    return store.append_event(os.fspath(run), record)


def written_event(record: Mapping[str, Any], **more: object) -> dict[str, Any]:
    """A decision's ``decision_written`` event from its record's JSON fields
    (``Decision.model_dump(mode="json")``, or the hook's fast path's plain copy): what
    ``audit --verify`` compares with the record, and ``more`` (the principal, the rule,
    the edit)."""
    return {
        "event": Event.DECISION_WRITTEN.value,
        "at": now_iso(),
        "handoff": record["handoff"],
        "action": record["action"],
        "category": record["category"],
        **({"reason": record["reason"]} if record["reason"] else {}),
        "reviewer": record["reviewer"],
        "sha256": record["sha256"],
        "verdict": record["verdict"],
        **more,
    }


def log_lines(run: str | os.PathLike[str], store: RunStore) -> Iterator[LogLine]:
    """The run's log line by line, in bounded memory (``store.log_lines``)."""
    from handoff_gate.gates.store.log_lines import log_lines as store_lines

    return store_lines(store, os.fspath(run))


def parse_line(line: LogLine) -> dict[str, Any] | None:
    """The line's JSON object, or ``None`` (not JSON, not an object, over the line cap)."""
    if line.raw is None:
        return None
    try:
        value = json.loads(line.raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def chain_problems(line: LogLine, value: dict[str, Any] | None, expected: str) -> list[str]:
    """What is wrong with one line, given its parsed object and the ``prev`` it must name."""
    if line.raw is None:
        return [f"line {line.number}: {line.size} bytes, over the {MAX_LOG_LINE}-byte line cap"]
    if value is None:
        return [f"line {line.number}: not a JSON object"]
    problems = []
    if value.get("prev") != expected:
        problems.append(f"line {line.number}: prev does not match the line before it")
    event = value.get("event")
    if not isinstance(event, str) or event not in _KNOWN:
        problems.append(f"line {line.number}: unknown event {value.get('event')!r}")
    return problems


def read_events(run: str | os.PathLike[str], store: RunStore) -> list[dict[str, Any]]:
    """All parseable events in order; other lines are skipped (see ``verify_chain``)."""
    return [value for value in map(parse_line, log_lines(run, store)) if value is not None]


def verify_chain(run: str | os.PathLike[str], store: RunStore) -> list[str]:
    """Every break in the log as a readable problem; an empty list means intact."""
    problems: list[str] = []
    expected = GENESIS
    for line in log_lines(run, store):
        problems += chain_problems(line, parse_line(line), expected)
        expected = line.digest
    return problems


def audit_events(run: str | os.PathLike[str], store: RunStore) -> list[dict[str, Any]]:
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
        edited = _field(event, "edited_sha256")
        if edited:
            editor = _field(event, "edited_by")
            original = _field(event, "sha256")
            by = f" by {editor}" if editor else ""
            parts.append(f"edited{by}: sha256 {original or '?'} -> edited sha256 {edited}")
        lines.append("  ".join(part for part in parts if part))
    return lines
