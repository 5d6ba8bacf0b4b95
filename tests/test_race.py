"""Several processes at once: one decision wins, submitters never share an id."""

from __future__ import annotations

from collections.abc import Callable
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import racers

from handoff_gate.gates.api import decide, read_decision, submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.decisions import DecisionRefused
from handoff_gate.gates.store.filesystem import FilesystemStore, handoff_path, list_handoffs
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.schemas import example_path

DECIDERS = 6
SUBMITTERS, EACH = 4, 5
BOUND = 60


def _decide(run: str, hid: str, action: str, gate: Barrier, out: Queue[Any]) -> None:
    gate.wait(BOUND)
    try:
        decide(
            Path(run),
            hid,
            action,
            reason="race",
            reviewer=f"r-{action}",
            registry=load_registry(""),
        )
    except DecisionRefused as exc:
        out.put(("refused", str(exc)))
    else:
        out.put(("written", action))


def _submit(run: str, gate: Barrier, out: Queue[Any]) -> None:
    gate.wait(BOUND)
    for _ in range(EACH):
        out.put(submit(Path(run), b"{}", phase="race", schema_id="plan/v1").id)


def _run(
    target: Callable[..., None], args_of: list[tuple[object, ...]], expected: int
) -> list[Any]:
    """Start all processes behind one barrier; collect ``expected`` results, then reap."""
    ctx = racers.context()
    gate, out = ctx.Barrier(len(args_of)), ctx.Queue()
    procs = [ctx.Process(target=target, args=(*a, gate, out)) for a in args_of]
    for p in procs:
        p.start()
    results = [out.get(timeout=BOUND) for _ in range(expected)]
    for p in procs:
        p.join(BOUND)
        assert p.exitcode == 0
    return results


def test_racing_deciders_leave_exactly_one_decision(tmp_path: Path) -> None:
    hid = submit(
        tmp_path, example_path("plan/v1").read_bytes(), phase="plan", schema_id="plan/v1"
    ).id
    actions = ["approve", "reject"] * (DECIDERS // 2)
    results = _run(_decide, [(str(tmp_path), hid, a) for a in actions], DECIDERS)
    written = [r for r in results if r[0] == "written"]
    refused = [r for r in results if r[0] == "refused"]
    assert len(written) == 1
    assert all("already" in r[1] for r in refused)
    decision = read_decision(tmp_path, hid)
    assert decision is not None
    assert decision.action.value == written[0][1]
    assert [p.name for p in (tmp_path / "decisions").iterdir()] == [f"{hid}.json"]
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []


def test_racing_submitters_get_distinct_ids(tmp_path: Path) -> None:
    submit(tmp_path, b"{}", phase="first", schema_id="plan/v1")
    ids = _run(_submit, [(str(tmp_path),)] * SUBMITTERS, SUBMITTERS * EACH)
    assert len(ids) == SUBMITTERS * EACH
    assert len(set(ids)) == len(ids)
    listed = list_handoffs(tmp_path)
    assert len(listed) == SUBMITTERS * EACH + 1
    assert len({r.seq for r in listed}) == len(listed)
    for ref in listed:
        assert (
            Envelope.model_validate_json(handoff_path(Path(ref.run), ref.id).read_bytes()).id
            == ref.id
        )
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []
