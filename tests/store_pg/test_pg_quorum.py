"""A quorum policy over PostgreSQL: each approver's signed decision is its own exclusive
row, and the wait releases only when the rule's count of valid approvals is there."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from handoff_gate.gates.api import decide, submit, wait
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.decisions import DecisionRefused
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")


def _key(folder: Path, name: str) -> Path:
    path = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path], check=True
    )
    return path


@pytest.fixture
def quorum(tmp_path: Path) -> tuple[Policy, dict[str, Path]]:
    keys = {name: _key(tmp_path, name) for name in ("alice", "bob", "mallory")}
    lines = [
        f"{name} {' '.join(keys[name].with_suffix('.pub').read_text().split()[:2])}"
        for name in ("alice", "bob")
    ]
    (tmp_path / "allowed_signers").write_text("\n".join(lines) + "\n")
    (tmp_path / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["alice", "bob"]\nrequired = 2\n'
    )
    return Policy.load(tmp_path / "policy.toml"), keys


def test_two_approvers_release_the_wait_and_a_stranger_counts_for_nothing(
    pg_url: str, schema_db: psycopg.Connection[Any], quorum: tuple[Policy, dict[str, Path]]
) -> None:
    policy, keys = quorum
    with PostgresStore(pg_url) as store:
        ref = submit(
            "nightly",
            example_path("plan/v1").read_bytes(),
            phase="plan",
            schema_id="plan/v1",
            store=store,
        )

        def approve(who: str) -> None:
            decide(
                "nightly",
                ref,
                "approve",
                registry=REGISTRY,
                key=SigningKey(keys[who]),
                policy=policy,
                store=store,
            )

        approve("alice")
        with pytest.raises(DecisionRefused, match="who may"):
            approve("mallory")
        waited = wait("nightly", ref, registry=REGISTRY, policy=policy, store=store, timeout=0)
        assert waited.outcome is WaitOutcome.TIMEOUT
        approve("bob")
        waited = wait("nightly", ref, registry=REGISTRY, policy=policy, store=store, timeout=30)
        assert waited.outcome is WaitOutcome.APPROVED
        assert sorted(d.principal or "" for d in waited.decisions) == ["alice", "bob"]
    rows = schema_db.execute("SELECT principal FROM decisions ORDER BY principal").fetchall()
    assert rows == [("alice",), ("bob",)]
