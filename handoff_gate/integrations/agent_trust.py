"""What else decides whether Claude Code or Gemini CLI runs a project's hooks at all.

A hook that is configured correctly still gates nothing when the agent skips the file
it is in, or every hook: Gemini CLI ignores a project's ``.gemini/settings.json`` (its
hooks included) in a folder the user has not trusted (``~/.gemini/trustedFolders.json``),
and Claude Code runs no hook when a settings file sets ``disableAllHooks``. These are
read here the conservative way: a folder counts as trusted only by an explicit rule,
the most specific one, and a distrust rule as specific wins.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

#: Where Gemini CLI reads its trusted folders, unless this variable names the file.
GEMINI_TRUST_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
_TRUSTING = {"TRUST_FOLDER", "TRUST_PARENT"}


def _json_object(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def gemini_folder_trusted(project: Path, home: Path) -> bool:
    """Whether Gemini CLI loads ``project``'s own settings: folder trust turned off in
    the user's settings, or the most specific rule covering it trusts it."""
    user = _json_object(home / ".gemini" / "settings.json") or {}
    trust = (user.get("security") or {}) if isinstance(user.get("security"), dict) else {}
    folder_trust = trust.get("folderTrust")
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return True
    rules_file = Path(os.environ.get(GEMINI_TRUST_ENV) or home / ".gemini" / "trustedFolders.json")
    rules = _json_object(rules_file) or {}
    best: tuple[int, bool] | None = None
    for key, level in rules.items():
        root = Path(key).parent if level == "TRUST_PARENT" else Path(key)
        if not root.is_absolute() or not _within(project, root):
            continue
        depth, trusted = len(root.parts), level in _TRUSTING
        if best is None or depth > best[0] or (depth == best[0] and not trusted):
            best = (depth, trusted)
    return best is not None and best[1]


def claude_hooks_disabled(settings: Path, project: Path, home: Path) -> list[Path]:
    """The Claude Code settings files in play that set ``disableAllHooks``."""
    files = [
        settings,
        project / ".claude" / "settings.local.json",
        home / ".claude" / "settings.json",
    ]
    found = []
    for path in dict.fromkeys(files):
        data = _json_object(path)
        if data is not None and data.get("disableAllHooks") is True:
            found.append(path)
    return found
