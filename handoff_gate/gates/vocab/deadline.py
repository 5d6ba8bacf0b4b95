"""A handoff's deadline: ``--expires-in`` durations, and whether a moment is past it.

A pipeline that gave up must not leave a handoff a reviewer can still approve. The
deadline is an absolute UTC time in the envelope (so signed with it), judged by the
clock of whoever decides or waits, so a skewed submitter cannot extend it afterwards.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

#: ``90s``, ``30m``, ``2h``, ``7d``: a whole number and one unit.
_DURATION = re.compile(r"([1-9][0-9]{0,6})([smhd])\Z")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: The longest deadline a handoff may be given: a year.
MAX_EXPIRES_IN = timedelta(days=366)
_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\Z")
AT_REGEX = _AT.pattern.removesuffix(r"\Z") + "$"


def parse_duration(text: str) -> timedelta:
    """``90s``/``30m``/``2h``/``7d`` as a ``timedelta``; ``ValueError`` for anything else."""
    found = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if found is None:
        raise ValueError(
            f"not a duration: {text!r} (a whole number and s, m, h or d, e.g. 90s, 30m, 2h, 7d)"
        )
    delta = timedelta(seconds=int(found.group(1)) * _UNITS[found.group(2)])
    if delta > MAX_EXPIRES_IN:
        raise ValueError(f"a deadline is at most {MAX_EXPIRES_IN.days} days away: {text!r}")
    return delta


def stamp(moment: datetime) -> str:
    """``moment`` in the one spelling an envelope's ``expires_at`` takes."""
    if moment.tzinfo is None:
        raise ValueError("a deadline must carry a time zone")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_at(text: str) -> datetime:
    """An ``expires_at`` back as an aware UTC time; ``ValueError`` if it is not one."""
    if not isinstance(text, str) or not _AT.match(text):
        raise ValueError(f"not a UTC time like 2026-12-01T23:05:00.000Z: {text!r}")
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def is_past(expires_at: str | None, now: datetime | None = None) -> bool:
    """Whether the deadline has passed by ``now`` (default: this machine's clock)."""
    if expires_at is None:
        return False
    return parse_at(expires_at) <= (now or datetime.now(UTC))


def left(expires_at: str, now: datetime | None = None) -> timedelta:
    """How long until the deadline (negative once past)."""
    return parse_at(expires_at) - (now or datetime.now(UTC))


def short(delta: timedelta) -> str:
    """A time left as a person reads it at a glance: ``45s``, ``12m``, ``3h``, ``2d``."""
    seconds = max(int(delta.total_seconds()), 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def duration(seconds: float) -> str:
    """Seconds as a person reads a wait: ``4.5s``, ``47s``, ``3m 05s``, ``2h 14m``, ``3d 4h``."""
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h"
