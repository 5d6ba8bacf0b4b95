"""``stats`` and ``Gate.stats`` on both stores, over runs made with the real submit and
decide: what a reviewer looking back reads (counts by outcome and decider, the reasons
ranked, the times to decision, ``--since``), an empty root, and reasons that try markup
or escapes printed as the characters they are.

The gate's clock (``audit.now_iso``) is set by hand, as the sample runs' generator does,
so each wait is known; the expected quantiles are computed here from their definition,
not by the code under test.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from signed_policy import key_line
from store_place import Place

import handoff_gate as hg
from handoff_gate.gates.audit import log as audit
from handoff_gate.schemas import example_path

PLAN = example_path("plan/v1").read_bytes()
DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1)
DAY3 = DAY1 + timedelta(days=2)
HOSTILE = "[bold red]BOOM[/]  \x1b[31mred\x1b[0m"
WAITS = [30.0, 120.0, 45.0, 600.0, 10.0, 5.0]
ARGS_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}


class Clock:
    """The gate's clock, moved by the test: every reading is ``now``."""

    def __init__(self) -> None:
        self.now = DAY1

    def __call__(self) -> str:
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(audit, "now_iso", made)
    return made


def rank_quantile(values: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default), from its formula."""
    ordered = sorted(values)
    h = (len(ordered) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])


def history(place: Place, clock: Clock) -> str:
    """Two runs: approvals, rejects (two with one reason spelt two ways, one hostile), a
    pending plan, a withdrawn one and an approved tool call. Returns the second run."""
    second = f"{place.run}-2"
    with hg.Gate(place.store) as gate:

        def decided(at: datetime, wait: float, action: str, who: str, **why: Any) -> None:
            clock.now = at
            ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
            clock.now = at + timedelta(seconds=wait)
            gate.decide(place.run, ref, action, reviewer=who, **why)

        decided(DAY1, 30, "approve", "ana")
        decided(DAY1, 120, "reject", "bob", category="wrong", reason="Not  a PLAN\n")
        decided(DAY1, 45, "reject", "ana", category="wrong", reason="not a plan")
        decided(DAY2, 600, "reject", "ana", category="unsafe", reason=HOSTILE)
        clock.now = DAY2
        gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")  # pending
        gone = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        gate.withdraw(place.run, gone, reason="cancelled", by="ci")
        call = gate.submit_tool_call(
            place.run, tool="Bash", args={"command": "ls"}, call_id="c1", json_schema=ARGS_SCHEMA
        )
        clock.now = DAY2 + timedelta(seconds=10)
        gate.decide(place.run, call, "approve", reviewer="bob")
        clock.now = DAY3
        ref = gate.submit(second, PLAN, phase="plan", schema_id="plan/v1")
        clock.now = DAY3 + timedelta(seconds=5)
        gate.decide(second, ref, "approve", reviewer="ana")
    return second


def stats_cli(place: Place, *extra: str) -> Any:
    root = () if place.store_args else (place.store,)
    done = cli(*place.store_args, "stats", *root, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in extra else done.stdout


def test_counts_deciders_reasons_and_times_on_each_store(place: Place, clock: Clock) -> None:
    history(place, clock)
    found = stats_cli(place, "--json")
    assert found["handoffs"] == 8
    outcomes = {k: v for k, v in found["by_outcome"].items() if v}
    assert outcomes == {"approved": 3, "rejected": 3, "pending": 1, "withdrawn": 1}
    assert set(found["by_outcome"]) == {s.value for s in hg.HandoffState}
    assert found["by_decider"] == [
        {"kind": "person", "name": "ana", "approved": 2, "rejected": 2, "total": 4},
        {"kind": "person", "name": "bob", "approved": 1, "rejected": 1, "total": 2},
    ]
    assert found["by_phase"]["plan"]["total"] == 7
    assert found["by_phase"]["tool-call"]["approved"] == 1
    assert list(found["by_tool"]) == ["Bash"] and found["by_tool"]["Bash"]["total"] == 1
    assert {k: v for k, v in found["reject_categories"].items() if v} == {"wrong": 2, "unsafe": 1}
    assert found["top_reasons"] == [
        {"reason": "not a plan", "count": 2},
        {"reason": " ".join(HOSTILE.split()).casefold(), "count": 1},
    ]
    times = found["time_to_decision"]
    assert times["decided"] == len(WAITS)
    assert times["median_seconds"] == pytest.approx(rank_quantile(WAITS, 0.5))
    assert times["median_seconds"] == pytest.approx(37.5)  # (30 + 45) / 2
    assert times["p95_seconds"] == pytest.approx(rank_quantile(WAITS, 0.95))
    assert sorted(found["by_day"]) == ["2026-03-02", "2026-03-03", "2026-03-04"]


def test_since_counts_only_what_was_submitted_from_then(place: Place, clock: Clock) -> None:
    history(place, clock)
    with hg.Gate(place.store) as gate:
        figures = gate.stats(since=DAY2)
    assert figures.handoffs == 5
    assert figures.by_outcome["rejected"] == 1 and figures.by_outcome["approved"] == 2
    recent = [600.0, 10.0, 5.0]
    assert figures.median_seconds == pytest.approx(rank_quantile(recent, 0.5))
    assert figures.p95_seconds == pytest.approx(rank_quantile(recent, 0.95))
    with hg.Gate(place.store) as gate:  # a datetime without a zone is UTC, as --since reads it
        assert gate.stats(since=DAY2.replace(tzinfo=None)).handoffs == 5
    found = stats_cli(place, "--json", "--since", "2026-03-04")
    assert found["handoffs"] == 1 and found["since"] == "2026-03-04T00:00:00+00:00"
    assert found["by_decider"] == [
        {"kind": "person", "name": "ana", "approved": 1, "rejected": 0, "total": 1}
    ]
    assert found["top_reasons"] == []


def test_a_reason_with_markup_and_escapes_prints_literally(place: Place, clock: Clock) -> None:
    history(place, clock)
    shown = stats_cli(place)
    assert "\x1b" not in shown
    assert "[bold red]boom[/]" in shown  # the brackets are text, not a style
    assert "not a plan" in shown and "ana" in shown and "Bash" in shown
    assert "⟨ESC⟩[31mred⟨ESC⟩[0m" in shown  # the escapes made visible, not run
    assert "median 38s, p95 8m 00s" in shown  # 37.5 s and 480 s, as a person reads them


def test_an_empty_root_has_nothing_to_count(tmp_path: Path) -> None:
    done = cli("stats", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["handoffs"] == 0 and found["by_decider"] == [] and found["top_reasons"] == []
    assert found["time_to_decision"] == {
        "decided": 0,
        "median_seconds": None,
        "p95_seconds": None,
    }
    shown = cli("stats", str(tmp_path))
    assert shown.returncode == 0 and "0 handoffs" in shown.stdout
    assert "nothing decided yet" in shown.stdout


@pytest.mark.parametrize("since", ["yesterday", "2026-13-01", "", "2026-03-02T25:00"])
def test_a_bad_since_is_one_line_and_exit_2(tmp_path: Path, since: str) -> None:
    done = cli("stats", str(tmp_path), "--since", since)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--since" in done.stderr


@pytest.mark.parametrize(
    "values",
    [[7.0], [1.0, 2.0], [3.0, 1.0, 2.0], [float(n * n) for n in range(1, 40)]],
)
def test_quantiles_match_their_definition(values: list[float]) -> None:
    from handoff_gate.gates.stats.figures import quantile

    for q in (0.5, 0.95):
        assert quantile(values, q) == pytest.approx(rank_quantile(values, q))
    assert quantile([], 0.5) is None


@pytest.fixture
def quorum(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A policy under which alice and bob must both approve a plan."""
    folder = tmp_path / "trust"
    folder.mkdir()
    keys = {name: folder / name for name in ("alice", "bob")}
    lines = [f"{name} {key_line(keys[name])}" for name in keys]  # each key made here
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["alice", "bob"]\nrequired = 2\n'
    )
    return policy, keys


def test_a_quorum_counts_each_approver_and_waits_for_the_last(
    place: Place, clock: Clock, quorum: tuple[Path, dict[str, Path]]
) -> None:
    """Under a policy each signed approval is its approver's, the time to decision runs to
    the approval that met the quorum, and an unsigned record (which counts for nothing
    there) names no decider."""
    policy, keys = quorum
    with hg.Gate(place.store, policy=policy) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        planted = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
    with hg.Gate(place.store) as gate:  # no policy: an unsigned approval by anyone
        gate.decide(place.run, planted, "approve", reviewer="mallory")
    for who, wait in (("bob", 60), ("alice", 200)):
        clock.now = DAY1 + timedelta(seconds=wait)
        with hg.Gate(place.store, policy=policy, key=keys[who]) as gate:
            gate.decide(place.run, ref, "approve")
    found = stats_cli(place, "--json", "--policy", str(policy))
    assert {k: v for k, v in found["by_outcome"].items() if v} == {"approved": 1, "pending": 1}
    assert found["by_decider"] == [
        {"kind": "person", "name": "alice", "approved": 1, "rejected": 0, "total": 1},
        {"kind": "person", "name": "bob", "approved": 1, "rejected": 0, "total": 1},
    ]
    assert found["time_to_decision"]["median_seconds"] == pytest.approx(200.0)


def test_top_names_how_many_reasons_are_ranked(place: Place, clock: Clock) -> None:
    history(place, clock)
    found = stats_cli(place, "--json", "--top", "1")
    assert found["top_reasons"] == [{"reason": "not a plan", "count": 2}]
    root = () if place.store_args else (place.store,)
    refused = cli(*place.store_args, "stats", *root, "--top", "-1")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "--top" in refused.stderr
