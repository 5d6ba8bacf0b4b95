"""A reviewer's edit of a payload: their editor, and the diff.

The edit starts from the payload as ``wait`` would deliver it, never the producer's raw
text: a key the contract drops is not offered back for editing. The diff is plain
``Text``, each line made visible: payload and typing are shown, never interpreted.
"""

from __future__ import annotations

import difflib
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rich.text import Text

from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.tui.textviews import DIFF_STYLES

#: The variables that name the reviewer's editor, in the order they are asked.
EDITOR_VARIABLES = ("VISUAL", "EDITOR")
#: Diff lines shown in the confirmation; the rest are counted.
MAX_DIFF_LINES = 400


class EditorFailed(Exception):
    """The editor could not run, exited with an error, or left no usable file: one line."""


def editor_command(environ: Mapping[str, str]) -> list[str] | None:
    """``None``: neither is set to something that splits into words (the app then edits
    in a dialog)."""
    for name in EDITOR_VARIABLES:
        value = environ.get(name, "").strip()
        try:
            words = shlex.split(value)
        except ValueError:
            continue
        if words:
            return words
    return None


def run_editor(command: list[str], text: str, handoff_id: str) -> bytes:
    """Blocking: call it with the app suspended. The file is the reviewer's alone (a
    folder of their own, mode 0600) and is removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="handoff-gate-edit-"))
    path = folder / f"{handoff_id}.json"
    try:
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            raise EditorFailed(f"cannot run the editor {command[0]!r}: {exc.strerror}") from exc
        if done.returncode != 0:
            raise EditorFailed(f"the editor exited with status {done.returncode}")
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_HANDOFF_BYTES + 1)
        except OSError as exc:
            raise EditorFailed(f"the edited file cannot be read: {exc.strerror}") from exc
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if len(data) > MAX_HANDOFF_BYTES:
        raise EditorFailed(f"the edited file is over the {MAX_HANDOFF_BYTES}-byte limit")
    return data


def edit_diff(before: str, after: str) -> Text:
    lines = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile="delivered now",
            tofile="edited",
            lineterm="",
        )
    )
    shown = Text()
    for line in lines[:MAX_DIFF_LINES]:
        headed = line.startswith(("+++", "---"))
        style = "bold" if headed else DIFF_STYLES.get(line[:1], "")
        shown.append(visible(line).replace("\t", "\\t"), style)
        shown.append("\n")
    if len(lines) > MAX_DIFF_LINES:
        shown.append(f"…and {len(lines) - MAX_DIFF_LINES} more lines\n", style="dim")
    shown.rstrip()
    return shown
