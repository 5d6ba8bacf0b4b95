"""Inspection pauses the garbage collector while it works and always hands it back as found."""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest
from inspect_contracts import REGISTRY, VALID_STRICT, dumps

from handoff_gate.gates.inspect.handoff_file import inspect_handoff
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.vocab.findings import Code


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


def test_the_collector_is_left_running_while_another_thread_works() -> None:
    """The collector is process-wide: pausing it for one inspection would pause it for the
    TUI's screen thread or a pipeline's own threads too."""
    seen: list[bool] = []
    go, done = threading.Event(), threading.Event()

    class _Watching(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            seen.append(gc.isenabled())
            return REGISTRY[key]

        def __contains__(self, key: object) -> bool:
            return key in REGISTRY

    def other() -> None:
        go.set()
        done.wait(10)

    worker = threading.Thread(target=other)
    worker.start()
    go.wait(10)
    try:
        assert gc.isenabled()
        inspect(dumps(VALID_STRICT), "strict/v1", _Watching())
    finally:
        done.set()
        worker.join()
    assert seen and all(seen)
