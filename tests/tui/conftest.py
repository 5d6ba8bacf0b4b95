"""Fixtures for the TUI tests: a fixed clock, a registry with user contracts, a root folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel
from tui_helpers import FIXED_TIME, Note, Trap

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit, "now_iso", lambda: FIXED_TIME)


@pytest.fixture
def registry() -> dict[str, type[BaseModel]]:
    return {**load_registry(""), "note/v1": Note, "trap/v1": Trap}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    return folder
