"""Batch decisions on both stores: ``Gate.decide_many``, ``wait_many``/``wait_any`` and
``decide --pending`` / ``decide --ids -``.

What a reviewer would notice if batching weakened anything: a blocked handoff approved
because it sat in a batch, one record standing for several handoffs, an unsigned record
in a signed batch, a decision missing from the audit log, or a typo on one line of
``--ids`` deciding the lines before it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from cli_helpers import cli
from store_place import Place
from trust.trust_helpers import make_key

import handoff_gate as hg
from handoff_gate.schemas import example_path

PLAN = example_path("plan/v1").read_bytes()
BROKEN = b'{"problem_statement": '


def submitted(gate: hg.Gate, run: str, payloads: list[bytes]) -> list[hg.HandoffRef]:
    phases = ["plan"] * len(payloads)
    return [
        gate.submit(run, data, phase=phase, schema_id="plan/v1")
        for data, phase in zip(payloads, phases, strict=True)
    ]


def decision_events(gate: hg.Gate, run: str) -> list[dict[str, object]]:
    return [e for e in gate.audit_events(run) if e["event"] == "decision_written"]


def test_each_item_is_its_own_record_and_a_blocked_one_never_rides_along(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        good, bad, other = submitted(gate, place.run, [PLAN, BROKEN, PLAN])
        results = gate.decide_many(
            place.run,
            [(good, good.sha256), (bad.id, bad.sha256), (other, other.sha256)],
            "approve",
            reviewer="ana",
        )
        assert [r.ref.id for r in results] == [good.id, bad.id, other.id]
        assert [r.written for r in results] == [True, False, True]
        assert "blocked" in results[1].refused
        assert gate.standing(place.run, good).state is hg.HandoffState.APPROVED
        assert gate.standing(place.run, bad).state is hg.HandoffState.BLOCKED
        assert gate.standing(place.run, other).state is hg.HandoffState.APPROVED
        records = {r.ref.id: r.decision for r in results if r.decision is not None}
        assert records[good.id].sha256 == good.sha256
        assert records[other.id].sha256 == other.sha256
        events = decision_events(gate, place.run)
        assert [(e["handoff"], e["sha256"]) for e in events] == [
            (good.id, good.sha256),
            (other.id, other.sha256),
        ]
        refused = [e for e in gate.audit_events(place.run) if e["event"] == "decision_refused"]
        assert [e["handoff"] for e in refused] == [bad.id]


def test_a_stale_sha256_refuses_that_item_only(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        first, second = submitted(gate, place.run, [PLAN, PLAN])
        results = gate.decide_many(
            place.run,
            [(first.id, "0" * 64), (second.id, second.sha256)],
            "reject",
            reason="the scope is wrong",
            category="wrong",
        )
        assert "changed since it was reviewed" in results[0].refused
        assert results[1].decision is not None
        assert results[1].decision.category is hg.Category.WRONG
        assert gate.standing(place.run, first).state is hg.HandoffState.PENDING
        assert gate.standing(place.run, second).state is hg.HandoffState.REJECTED


def test_a_signed_batch_signs_every_record_on_its_own(tmp_path: Path) -> None:
    folder = tmp_path / "trust"
    folder.mkdir()
    key = make_key(folder / "alice")
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f"alice {public}\n")
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\napprovers = ["alice"]\n'
    )
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path)) as producer:
        refs = submitted(producer, run, [PLAN, PLAN, PLAN])
    with hg.Gate(str(tmp_path), policy=policy, key=key) as gate:
        results = gate.decide_many(run, [(r, r.sha256) for r in refs], "approve")
        signatures = {r.decision.signature for r in results if r.decision is not None}
        assert len(signatures) == 3 and None not in signatures
        assert all(gate.standing(run, r).state is hg.HandoffState.APPROVED for r in refs)
        assert gate.verify(run) == []


def test_decide_pending_decides_what_matches_one_line_per_id(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        plans = submitted(gate, place.run, [PLAN, BROKEN, PLAN])
        review = gate.submit(place.run, PLAN, phase="review", schema_id="plan/v1")
    approve = cli(*place.store_args, "decide", place.run, "--pending", "--phase", "plan", "approve")
    assert approve.returncode == 0, approve.stderr
    assert approve.stdout.splitlines() == [
        f"{plans[0].id} approved by {_who(approve.stdout)}",
        f"{plans[2].id} approved by {_who(approve.stdout)}",
    ]
    reject = cli(
        *place.store_args, "decide", place.run, "reject", "--pending", "--reason", "not this one"
    )
    assert reject.returncode == 0, reject.stderr
    assert [line.split()[:2] for line in reject.stdout.splitlines()] == [
        [plans[1].id, "rejected"],
        [review.id, "rejected"],
    ]
    nothing = cli(*place.store_args, "decide", place.run, "--pending", "approve")
    assert (nothing.returncode, nothing.stdout) == (0, "")


def _who(stdout: str) -> str:
    return stdout.splitlines()[0].split(" by ", 1)[1]


def test_decide_pending_exits_1_when_any_is_refused(tmp_path: Path) -> None:
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path)) as gate:
        first, second = submitted(gate, run, [PLAN, PLAN])
    blank = cli("decide", run, "--pending", "reject", "--reason", "   ")
    assert blank.returncode == 1
    assert [line.split()[:2] for line in blank.stdout.splitlines()] == [
        [first.id, "refused:"],
        [second.id, "refused:"],
    ]


def test_decide_ids_binds_each_line_to_its_sha256(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        first, second, third = submitted(gate, place.run, [PLAN, PLAN, PLAN])
        lines = f"{first.id} {first.sha256}\n\n{second.id} {'f' * 64}\n{third.id} {third.sha256}\n"
        done = cli(
            *place.store_args, "decide", place.run, "--ids", "-", "approve", stdin=lines.encode()
        )
        assert done.returncode == 1
        assert [line.split()[:2] for line in done.stdout.splitlines()] == [
            [first.id, "approved"],
            [second.id, "refused:"],
            [third.id, "approved"],
        ]
        states = [gate.standing(place.run, r).state for r in (first, second, third)]
        assert states == [
            hg.HandoffState.APPROVED,
            hg.HandoffState.PENDING,
            hg.HandoffState.APPROVED,
        ]


@pytest.mark.parametrize(
    "bad_line",
    ["0002-plan", "0002-plan abc", "../etc " + "a" * 64, "0002-plan " + "a" * 64 + " extra"],
)
def test_a_malformed_ids_line_exits_2_and_writes_nothing(tmp_path: Path, bad_line: str) -> None:
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path)) as gate:
        first, _ = submitted(gate, run, [PLAN, PLAN])
        lines = f"{first.id} {first.sha256}\n{bad_line}\n"
        done = cli("decide", run, "--ids", "-", "approve", stdin=lines.encode())
        assert done.returncode == 2
        assert "--ids line 2" in done.stderr and len(done.stderr.splitlines()) == 1
        assert decision_events(gate, run) == []
        assert gate.standing(run, first).state is hg.HandoffState.PENDING


@pytest.mark.parametrize(
    "words",
    [
        ["--pending", "approve", "--sha256", "a" * 64],
        ["--pending", "maybe"],
        ["0001-plan"],
        ["0001-plan", "approve", "--phase", "plan"],
        ["--ids", "-", "approve", "--phase", "plan"],
    ],
)
def test_batch_usage_mistakes_exit_2(tmp_path: Path, words: list[str]) -> None:
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path)) as gate:
        submitted(gate, run, [PLAN])
        done = cli("decide", run, *words, stdin=b"")
        assert done.returncode == 2, done.stdout
        assert decision_events(gate, run) == []


def test_wait_many_yields_each_as_it_settles_and_wait_any_the_first(place: Place) -> None:
    with hg.Gate(place.store) as gate:
        refs = submitted(gate, place.run, [PLAN, PLAN, PLAN])

        async def scenario() -> tuple[list[str], str]:
            order: list[str] = []
            waits = gate.wait_many(place.run, refs, poll=True, timeout=60)
            gate.decide(place.run, refs[2], "approve", reviewer="ana")
            async for ref, result in waits:
                order.append(f"{ref.id}:{result.outcome.value}")
                if ref == refs[2]:
                    gate.decide(place.run, refs[0], "reject", reason="no", reviewer="ana")
                elif ref == refs[0]:
                    gate.decide(place.run, refs[1].id, "approve", reviewer="ana")
            first, result = await gate.wait_any(place.run, [r.id for r in refs], timeout=60)
            return order, f"{first.id}:{result.outcome.value}"

        order, first = asyncio.run(scenario())
        assert order == [
            f"{refs[2].id}:approved",
            f"{refs[0].id}:rejected",
            f"{refs[1].id}:approved",
        ]
        assert first in {
            f"{r.id}:{s}" for r, s in zip(refs, ["rejected", "approved", "approved"], strict=True)
        }
        returned = [e for e in gate.audit_events(place.run) if e["event"] == "wait_returned"]
        assert len(returned) == 6


def test_leaving_wait_many_early_stops_the_other_waits(tmp_path: Path) -> None:
    run = str(tmp_path / "job")
    with hg.Gate(str(tmp_path)) as gate:
        refs = submitted(gate, run, [PLAN, PLAN])
        gate.decide(run, refs[1], "approve", reviewer="ana")

        async def scenario() -> tuple[str, int]:
            async with contextlib.aclosing(gate.wait_many(run, refs, poll=True)) as waits:
                first, _ = await anext(waits)
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            return first.id, len(others)

        assert asyncio.run(scenario()) == (refs[1].id, 0)
        waiters = gate.store.waiters(run, [r.id for r in refs])
        assert waiters is None or not any(waiters.values())
