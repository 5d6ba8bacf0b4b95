"""``hg.Gate`` on both stores: one object owns the store, contracts, policy and key.

Every test runs against a folder of runs and a PostgreSQL database through the same
calls. The quorum test checks what a reviewer would notice if the front ends drifted
apart: ``wait``, ``list --json``, ``Gate.standing`` and the TUI's inspection all name
the same approvers, in the order they approved.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from cli_helpers import BOUND, cli
from trust.trust_helpers import make_key

import handoff_gate as hg
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import example_path
from handoff_gate.tui.review_core import inspection

PLAN = example_path("plan/v1").read_bytes()


@dataclass(frozen=True)
class Place:
    """What a Gate is made with (a folder or a URL), the run in it, and how the CLI's
    ``list`` reaches it."""

    store: str
    run: str
    before: tuple[str, ...]
    after: tuple[str, ...]


@pytest.fixture(params=["fs", "pg"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Place]:
    if request.param == "fs":
        runs = tmp_path / "runs"
        runs.mkdir()
        yield Place(str(runs), "job-17", (), (str(runs),))
        return
    url: str = request.getfixturevalue("pg_url")
    with psycopg.connect(url, autocommit=True) as conn:
        init_schema(conn, roles=True)
    yield Place(url, "job-17", ("--store", url), ())


@pytest.fixture
def quorum(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A policy under which alice and bob must both approve a plan."""
    folder = tmp_path / "trust"
    folder.mkdir()
    keys = {name: make_key(folder / name) for name in ("alice", "bob")}
    lines = [
        f"{name} {' '.join(keys[name].with_suffix('.pub').read_text().split()[:2])}"
        for name in keys
    ]
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["alice", "bob"]\nrequired = 2\n'
    )
    return policy, keys


def test_a_gate_submits_decides_waits_and_reports_standing(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        assert (ref.run, ref.id) == (place.run, "0001-plan")
        assert len(ref.sha256) == 64
        assert gate.standing(place.run, ref).state is hg.HandoffState.PENDING
        gate.decide(place.run, ref, "approve", reviewer="alice")
        result = gate.wait(place.run, ref, timeout=0)
        standing = gate.standing(place.run, ref)
        assert gate.runs() == [place.run]
        assert [r.id for r in gate.handoffs(place.run)] == ["0001-plan"]
        assert gate.verify(place.run) == []
    assert result.outcome == "approved"
    assert result.payload is not None
    assert standing.state is hg.HandoffState.APPROVED
    assert standing.decision is not None and standing.decision.reviewer == "alice"
    assert standing.run_name == "job-17"


async def test_a_gate_waits_from_a_coroutine(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        gate.decide(place.run, ref, "reject", reason="no success criteria", reviewer="bo")
        result = await gate.wait_async(place.run, ref, timeout=0)
    assert result.outcome == "rejected"
    assert result.decision is not None and result.decision.reason == "no success criteria"


def test_a_reference_binds_a_decision_to_the_bytes_submitted(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        first = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        again = gate.submit(
            place.run, PLAN, phase="plan", schema_id="plan/v1", idempotency_key="step-1"
        )
        same = gate.submit(
            place.run, PLAN, phase="plan", schema_id="plan/v1", idempotency_key="step-1"
        )
        assert same == again != first
        stale = hg.HandoffRef(place.run, again.id, first.sha256)
        with pytest.raises(hg.DecisionRefused, match="changed since it was reviewed"):
            gate.decide(place.run, stale, "approve", reviewer="alice")
        assert gate.standing(place.run, again).state is hg.HandoffState.PENDING


def test_a_gate_closes_the_connection_it_opened(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=True)

        def sessions() -> int:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            ).fetchone()
            return int(row[0]) if row else 0

        def gone(count: int) -> bool:
            """Whether the server's sessions are back to ``count`` (a closed connection's
            backend exits a moment after the client closed it)."""
            deadline = time.monotonic() + BOUND
            while sessions() != count and time.monotonic() < deadline:
                time.sleep(0.01)
            return sessions() == count

        before = sessions()
        with hg.Gate(pg_url) as gate:
            gate.submit("nightly", PLAN, phase="plan", schema_id="plan/v1")
            assert sessions() > before
        assert gone(before)
        hg.submit("nightly", PLAN, phase="plan", schema_id="plan/v1", store=pg_url)
        assert gone(before)


def test_the_module_functions_read_the_policy_from_the_environment(
    place: Place, quorum: tuple[Path, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    policy, _ = quorum
    with hg.Gate(place.store) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        gate.decide(place.run, ref, "approve", reviewer="mallory")  # unsigned: no policy here
    monkeypatch.setenv("HANDOFF_GATE_POLICY", str(policy))
    run = place.run
    result = hg.wait(run, ref, store=place.store, timeout=0, on_refused=lambda line: None)
    assert result.outcome == "timeout"  # the unsigned approval counts for nothing
    monkeypatch.delenv("HANDOFF_GATE_POLICY")
    assert hg.wait(run, ref, store=place.store, timeout=0).outcome == "approved"


def test_every_front_end_names_a_quorum_in_the_order_it_approved(
    place: Place, quorum: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    policy, keys = quorum
    with hg.Gate(place.store, policy=policy) as gate:
        ref = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
    # bob approves before alice: the order of their names, not of the alphabet
    with hg.Gate(place.store, policy=policy, key=keys["bob"]) as gate:
        first = gate.decide(place.run, ref, "approve")
    while audit.now_iso() == first.decided_at:  # a later stamp for alice's approval
        pass
    with hg.Gate(place.store, policy=policy, key=keys["alice"]) as gate:
        gate.decide(place.run, ref, "approve")
        waited = gate.wait(place.run, ref, timeout=0)
        standing = gate.standing(place.run, ref)
        seen = inspection(standing, policy=True)
    listed = cli(*place.before, "list", *place.after, "--policy", str(policy), "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    named = ["bob", "alice"]
    assert waited.outcome == "approved"
    assert [d.principal for d in waited.decisions] == named
    assert [d.principal for d in standing.decisions] == named
    assert list(seen.trust.approvals) == named
    assert waited.decision is not None and waited.decision.principal == "bob"
    assert standing.decision is not None and standing.decision.principal == "bob"
    assert seen.decision is not None and seen.decision.principal == "bob"
    assert (row["state"], row["reviewer"]) == ("approved", "bob")


def test_a_run_given_as_a_path_is_a_run_of_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HANDOFF_GATE_STORE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    ref = hg.submit("runs/job-17", PLAN, phase="plan", schema_id="plan/v1")
    assert (tmp_path / "runs" / "job-17" / "handoffs" / f"{ref.id}.json").is_file()
    hg.decide("runs/job-17", ref, "approve", reviewer="ana")
    with hg.Gate("runs") as gate:
        assert gate.standing("job-17", ref.id).state is hg.HandoffState.APPROVED
    assert hg.wait("runs/job-17", ref, timeout=0).outcome == "approved"
