"""``handoff-gate --version``: the installed distribution's version."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "handoff-gate"


def text() -> str:
    """``handoff-gate X.Y.Z``, or ``unknown`` when running from an uninstalled tree."""
    try:
        return f"{DISTRIBUTION} {version(DISTRIBUTION)}"
    except PackageNotFoundError:
        return f"{DISTRIBUTION} (version unknown: not installed)"
