"""A batch decide inspects each handoff once: the selection's report is what it decides on,
re-checking only the bytes' sha256 at write time (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli

from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.batch import decide_many, open_handoffs
from handoff_gate.gates.store.filesystem import FilesystemStore

MODULE = '''
from pathlib import Path
from pydantic import BaseModel, field_validator

COUNT = Path(__file__).with_name("validated")

class Note(BaseModel):
    """A note whose every validation is counted in a file beside this module."""
    text: str

    @field_validator("text")
    @classmethod
    def _counted(cls, value: str) -> str:
        with COUNT.open("a") as out:
            out.write(value + "\\n")
        return value

SCHEMAS = {"note/v1": Note}
'''


def _run_with_notes(tmp_path: Path, count: int) -> tuple[Path, Path]:
    module = tmp_path / "notes.py"
    module.write_text(MODULE)
    run = tmp_path / "run"
    for n in range(count):
        done = cli(
            "submit", str(run), "--phase", "note", "--schema", "note/v1", "--schemas",
            str(module), "-", stdin=json.dumps({"text": f"note {n}"}).encode(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return run, module.with_name("validated")


def test_decide_pending_inspects_each_handoff_once(tmp_path: Path) -> None:
    run, counted = _run_with_notes(tmp_path, 3)
    counted.unlink(missing_ok=True)
    done = cli("decide", str(run), "--pending", "approve", "--schemas", str(tmp_path / "notes.py"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("approved by") == 3
    validated = counted.read_text().splitlines()
    assert sorted(validated) == ["note 0", "note 1", "note 2"]  # one inspection each


def test_a_handoff_changed_after_the_selection_is_inspected_again_and_refused(
    tmp_path: Path,
) -> None:
    """The one look binds to bytes: a batch never decides bytes it did not see."""
    run, _ = _run_with_notes(tmp_path, 2)
    store = FilesystemStore()
    contracts = load_registry(str(tmp_path / "notes.py"))
    found = open_handoffs(store, run, "approve", registry=contracts)
    target = run / "handoffs" / "0002-note.json"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"note 1", b"note X"))
    seen = {s.ref.id: s.report for s in found}
    items = [(s.ref, s.ref.sha256) for s in found]
    results = decide_many(store, run, items, "approve", registry=contracts, seen=seen)
    assert [r.written for r in results] == [True, False]
    assert "changed" in results[1].refused
