"""``--since DATE``: an ISO date or datetime, as the moment a look back starts from.

Its own module so the parser reads it without loading any command. A date is its
midnight in UTC, a datetime without a zone is UTC; anything else is an argument error
(one line, exit 2), never a silent "since the beginning".
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime


def since_moment(text: str) -> datetime:
    """The aware UTC moment ``2026-03-02`` or ``2026-03-02T09:30Z`` names."""
    try:
        found = datetime.fromisoformat(text.strip())
    except ValueError:
        shown = text[:80]
        raise argparse.ArgumentTypeError(
            f"not an ISO date or datetime: {shown!r} (e.g. 2026-03-02 or 2026-03-02T09:30Z)"
        ) from None
    return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
