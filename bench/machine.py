"""Machine notes saved with every run, so figures from different hosts are not compared blindly."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata

LIBRARIES = ("pydantic", "pydantic-core", "jiter", "watchfiles", "textual", "rich")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def machine_notes() -> dict[str, object]:
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "nproc": os.cpu_count(),
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "commit": _commit(),
        "libraries": {name: _version(name) for name in LIBRARIES},
    }
