"""Keywords given as a ``TypedDict`` (``**options: Unpack[...]``), checked as Python would.

At run time ``**options`` takes any name, so a misspelt ``expire_in=`` would pass
unnoticed and the handoff would have no deadline. ``checked`` refuses it with the
``TypeError`` a plain signature raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def checked(call: str, given: Mapping[str, object], spec: Any) -> None:
    """``TypeError`` for a keyword ``spec`` (a ``TypedDict`` class) does not name, or a
    required one missing, worded as for a function ``call``."""
    unknown = sorted(set(given) - spec.__required_keys__ - spec.__optional_keys__)
    if unknown:
        raise TypeError(f"{call}() got an unexpected keyword argument {unknown[0]!r}")
    missing = sorted(spec.__required_keys__ - set(given))
    if missing:
        raise TypeError(f"{call}() missing required keyword argument {missing[0]!r}")
