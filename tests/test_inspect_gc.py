"""Inspection pauses the garbage collector while it works and always hands it back as found."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from inspect_contracts import REGISTRY, VALID_STRICT, dumps

from handoff_gate.gates.findings import Code
from handoff_gate.gates.inspection import inspect, inspect_handoff


class _Exploding(dict[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise ZeroDivisionError("registry broke")


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_state_is_restored_on_every_path(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        outcomes = [
            inspect(dumps(VALID_STRICT), "strict/v1", REGISTRY).approvable,
            Code.INTERNAL_ERROR in {f.code for f in inspect(b"{}", "broken/v1", REGISTRY).findings},
            inspect(dumps(VALID_STRICT), "strict/v1", _Exploding()).findings[0].code,
            inspect_handoff(b"{not json", REGISTRY).findings[0].code,
        ]
        assert outcomes == [True, True, Code.INTERNAL_ERROR, Code.BAD_ENVELOPE]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
