"""``inspect`` hashes exact bytes, so text (which has no single encoding) is refused."""

from __future__ import annotations

import dataclasses
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


def test_a_report_from_inspect_is_a_whole_frozen_report() -> None:
    """``inspect`` builds its report without the dataclass ``__init__`` (for speed): it
    must still set every field, equal the report ``__init__`` would build, and refuse
    changes; and ``Report`` must have no ``__post_init__`` that such a build would skip."""
    report = hg.inspect(b'{"summary": "x", "steps": []}', "plan/v1", hg.load_registry(""))
    assert vars(report).keys() == {f.name for f in dataclasses.fields(hg.Report)}
    assert report == hg.Report(**vars(report))
    assert report.findings and not report.approvable  # a real report, with its findings
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.size = 0  # type: ignore[misc]
    assert not hasattr(hg.Report, "__post_init__")


def test_inspect_options_reach_the_report() -> None:
    """The options object carries what the caller knows: here, a producer's length stop."""
    registry = hg.load_registry("")
    cut = hg.inspect(
        b'{"summary": "x"}', "plan/v1", registry, hg.InspectOptions(finish_reason="length")
    )
    assert hg.Code.TRUNCATED in {f.code for f in cut.findings}
