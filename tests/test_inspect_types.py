"""``inspect`` hashes exact bytes, so text (which has no single encoding) is refused."""

from __future__ import annotations

import inspect

import pytest

import handoff_gate as hg


def test_inspect_given_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="bytes"):
        hg.inspect('{"summary": "x"}', "plan/v1", hg.load_registry(""))  # type: ignore[arg-type]


def test_wait_async_is_part_of_the_public_api() -> None:
    assert "wait_async" in dir(hg)
    assert hg.wait_async.__module__ == "handoff_gate.gates.api"  # a Gate's, per call
    assert inspect.iscoroutinefunction(hg.Gate.wait_async)
