"""The gate under attack by the very process it gates: an agent with a shell in the run.

Keys are real ed25519 keys made by ``ssh-keygen``; the attacker writes files the way a
shell would. Each test names the attack and what must hold afterwards.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from handoff_gate.gates.api import decide, inspect_in_run, submit, wait
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.audit.verify import verify_run
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.decide.decisions import DecisionRefused
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.standing.phase_rule import NoRule
from handoff_gate.gates.standing.quorum import record_refusals, settle
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.filesystem import AUDIT_FILE, FilesystemStore
from handoff_gate.gates.store.log_chain import line_hash
from handoff_gate.gates.trust.ed25519 import sign
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.trust.statement import decision_statement
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")
PLAN = example_path("plan/v1").read_bytes()
STORE = FilesystemStore()
NAMES = ("alice", "bob", "planner", "mallory")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    made = {}
    for name in NAMES:
        path = folder / name
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path], check=True
        )
        made[name] = path
    return made


def _policy(folder: Path, keys: dict[str, Path], rules: str) -> Policy:
    folder.mkdir()
    lines = []
    for name in ("alice", "bob", "planner"):  # mallory's key is listed nowhere
        public = " ".join(keys[name].with_suffix(".pub").read_text().split()[:2])
        lines.append(f'{name} namespaces="handoff-gate" {public}')
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    (folder / "policy.toml").write_text('allowed_signers = "allowed_signers"\n' + rules)
    return Policy.load(folder / "policy.toml")


QUORUM = """
[[rule]]
phase = "plan"
approvers = ["alice", "bob"]
required = 2
producers = ["planner"]

[[rule]]
phase = "review"
approvers = ["alice", "planner"]
"""


@pytest.fixture
def policy(tmp_path: Path, keys: dict[str, Path]) -> Policy:
    return _policy(tmp_path / "policy", keys, QUORUM)


def _run(tmp_path: Path, name: str = "run") -> Path:
    run = tmp_path / name
    run.mkdir()
    return run


def _plan(run: Path, keys: dict[str, Path], phase: str = "plan") -> str:
    return submit(
        run,
        PLAN,
        phase=phase,
        schema_id="plan/v1",
        key=SigningKey(keys["planner"]),
        signer="planner",
    ).id


def _settle(run: Path, hid: str, policy: Policy | None) -> HandoffState | None:
    return settle(STORE, run, hid, REGISTRY, policy).outcome


def test_quorum_of_two_needs_both_approvers(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    decide(run, hid, "approve", key=SigningKey(keys["alice"]), policy=policy, registry=REGISTRY)
    settled = settle(STORE, run, hid, REGISTRY, policy)
    assert settled.outcome is None
    assert [d.principal for d in settled.decisions] == ["alice"]
    decide(run, hid, "approve", key=SigningKey(keys["bob"]), policy=policy, registry=REGISTRY)
    done = settle(STORE, run, hid, REGISTRY, policy)
    assert done.outcome is HandoffState.APPROVED
    assert done.report is not None and done.report.delivered is not None
    assert verify_run(run, STORE, policy) == []


def test_one_signed_reject_rejects_at_once(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    decide(
        run,
        hid,
        "reject",
        reason="no",
        key=SigningKey(keys["bob"]),
        policy=policy,
        registry=REGISTRY,
    )
    assert _settle(run, hid, policy) is HandoffState.REJECTED


def test_the_producer_cannot_approve_its_own_handoff(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys, phase="review")
    with pytest.raises(DecisionRefused, match="produced"):
        decide(
            run, hid, "approve", key=SigningKey(keys["planner"]), policy=policy, registry=REGISTRY
        )
    assert STORE.decision_records(str(run), hid) == {}


def test_a_key_that_may_not_decide_is_refused_naming_who_may(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    for intruder in ("mallory", "planner"):
        with pytest.raises(DecisionRefused, match="who may: alice, bob"):
            decide(
                run,
                hid,
                "approve",
                key=SigningKey(keys[intruder]),
                policy=policy,
                registry=REGISTRY,
            )
    assert STORE.decision_records(str(run), hid) == {}


def test_no_rule_for_the_phase_is_an_error(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="deploy", schema_id="plan/v1").id
    with pytest.raises(NoRule, match="deploy"):
        settle(STORE, run, hid, REGISTRY, policy)


def _approve_unsigned(run: Path, hid: str) -> None:
    decide(run, hid, "approve", reviewer="security-lead@corp", registry=REGISTRY)


def test_an_unsigned_approval_is_ignored_under_a_policy(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    _approve_unsigned(run, hid)
    settled = settle(STORE, run, hid, REGISTRY, policy)
    assert settled.outcome is None
    assert any("unsigned" in line for line in settled.refused)


def _signed_record(run: Path, hid: str) -> dict[str, object]:
    path = next((run / "decisions" / hid).iterdir())
    record: dict[str, object] = json.loads(path.read_text())
    return record


def test_hand_written_signed_decisions_are_ignored(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    """Mallory copies alice's record into bob's slot, and forges one in her own."""
    run = _run(tmp_path)
    hid = _plan(run, keys)
    decide(run, hid, "approve", key=SigningKey(keys["alice"]), policy=policy, registry=REGISTRY)
    record = _signed_record(run, hid)
    (run / "decisions" / hid / "bob.json").write_text(json.dumps({**record, "principal": "bob"}))
    forged = {**record, "principal": "mallory", "reviewer": "mallory"}
    (run / "decisions" / hid / "mallory.json").write_text(json.dumps(forged))
    settled = settle(STORE, run, hid, REGISTRY, policy)
    assert settled.outcome is None
    assert len(settled.refused) == 2
    assert verify_run(run, STORE, policy) != []


@pytest.mark.parametrize(
    "garbage",
    [
        {"verdict": "blocked", "decided_at": "not-a-date"},
        {"reviewer": "\x1b]52;c;aGk=\x07ana"},
        {"decided_at": "2026-02-30T00:00:00.000Z"},
    ],
)
def test_garbage_fields_make_a_record_corrupt(tmp_path: Path, garbage: dict[str, str]) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    _approve_unsigned(run, hid)
    path = run / "decisions" / f"{hid}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **garbage}))
    with pytest.raises(ValueError, match="not a valid decision"):
        settle(STORE, run, hid, REGISTRY)


def test_duplicate_keys_make_a_record_corrupt(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    decide(run, hid, "reject", reason="no", registry=REGISTRY)
    path = run / "decisions" / f"{hid}.json"
    text = path.read_text().replace('"action": "reject"', '"action": "reject", "action": "approve"')
    path.write_text(text)
    with pytest.raises(ValueError, match="duplicate"):
        settle(STORE, run, hid, REGISTRY)


def test_replaying_a_run_into_another_delivers_nothing(tmp_path: Path) -> None:
    source = _run(tmp_path, "source")
    hid = submit(source, PLAN, phase="plan", schema_id="plan/v1").id
    _approve_unsigned(source, hid)
    assert _settle(source, hid, None) is HandoffState.APPROVED
    target = tmp_path / "target"
    subprocess.run(["cp", "-a", str(source), str(target)], check=True)  # as a shell would
    settled = settle(STORE, target, hid, REGISTRY)
    assert settled.outcome is None
    assert any("source" in line for line in settled.refused)
    codes = {f.code for f in inspect_in_run(target, hid, REGISTRY).findings}
    assert Code.MISPLACED in codes


def test_a_renamed_envelope_is_misplaced(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    (run / "handoffs" / f"{hid}.json").rename(run / "handoffs" / "0007-plan.json")
    report = inspect_in_run(run, "0007-plan", REGISTRY)
    assert not report.approvable
    assert {f.code for f in report.findings} == {Code.MISPLACED}


def test_producer_signatures_are_required_where_the_policy_says(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    unsigned = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    wrong = submit(
        run, PLAN, phase="plan", schema_id="plan/v1", key=SigningKey(keys["alice"]), signer="alice"
    ).id
    forged = submit(
        run,
        PLAN,
        phase="plan",
        schema_id="plan/v1",
        key=SigningKey(keys["mallory"]),
        signer="planner",
    ).id
    good = _plan(run, keys)

    def codes(hid: str) -> set[Code]:
        return {f.code for f in inspect_in_run(run, hid, REGISTRY, policy=policy).blocking}

    assert codes(unsigned) == {Code.UNSIGNED_HANDOFF}
    assert codes(wrong) == {Code.UNKNOWN_PRODUCER}
    assert codes(forged) == {Code.UNKNOWN_PRODUCER}
    assert codes(good) == set()


def test_overturn_by_delete_is_detected(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    decide(run, hid, "reject", reason="unsafe plan", reviewer="human", registry=REGISTRY)
    (run / "decisions" / f"{hid}.json").unlink()
    _approve_unsigned(run, hid)
    assert _settle(run, hid, None) is HandoffState.APPROVED  # without a policy, wait cannot tell
    assert any("decided 2 times" in p for p in verify_run(run, STORE))


def _tampered_run(tmp_path: Path, keys: dict[str, Path], policy: Policy) -> Path:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    _plan(run, keys)
    decide(run, hid, "approve", key=SigningKey(keys["alice"]), policy=policy, registry=REGISTRY)
    assert verify_run(run, STORE, policy) == []
    return run


def _rechain(lines: list[bytes]) -> list[bytes]:
    from handoff_gate.gates.store.log_chain import chained_line

    out: list[bytes] = []
    for raw in lines:
        record = json.loads(raw)
        record.pop("prev")
        line, _ = chained_line(out[-1] if out else None, record)
        out.append(line)
    return out


@pytest.mark.parametrize(
    "tamper", ["middle_edit", "tail_delete", "whole_log", "emptied", "rechain"]
)
def test_every_audit_tamper_is_detected(
    tmp_path: Path, keys: dict[str, Path], policy: Policy, tamper: str
) -> None:
    run = _tampered_run(tmp_path, keys, policy)
    log = run / AUDIT_FILE
    lines = log.read_bytes().splitlines()
    if tamper == "middle_edit":
        lines[1] = lines[1].replace(b"handoff_submitted", b"handoff_submitted ")
        log.write_bytes(b"\n".join(lines) + b"\n")
    elif tamper == "tail_delete":
        log.write_bytes(b"\n".join(lines[:-1]) + b"\n")
    elif tamper == "whole_log":
        log.unlink()
    elif tamper == "emptied":
        log.write_bytes(b"")
    else:
        first = json.loads(lines[0])
        first["size"] = 1
        lines[0] = json.dumps(first).encode()
        log.write_bytes(b"\n".join(_rechain(lines)) + b"\n")
    problems = verify_run(run, STORE, policy)
    assert problems, tamper
    if tamper == "rechain":
        assert any("re-chained" in p for p in problems)


def test_a_decision_whose_event_was_lost_is_reported(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    _approve_unsigned(run, hid)
    log = run / AUDIT_FILE
    log.write_bytes(log.read_bytes().splitlines(keepends=True)[0])
    assert any("no decision_written event" in p for p in verify_run(run, STORE))


def test_decision_size_does_not_grow_with_findings(tmp_path: Path) -> None:
    run = _run(tmp_path)
    payload = json.loads(PLAN)
    payload.update({f"extra_{n}": n for n in range(14_000)})
    hid = submit(run, json.dumps(payload), phase="plan", schema_id="plan/v1").id
    decision = decide(run, hid, "reject", reason="too much", registry=REGISTRY)
    assert len(decision.codes) <= len(Code)
    assert (run / "decisions" / f"{hid}.json").stat().st_size < 4096


def test_audit_lines_are_sanitised(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    decide(run, hid, "reject", reason="bad \x1b]0;owned\x07 \u202e", registry=REGISTRY)
    lines = audit.audit_lines(audit.audit_events(run, STORE))
    assert len(lines) == 2
    assert all("\x1b" not in line and "\u202e" not in line for line in lines)
    assert "rejected" not in lines[1] and "reject" in lines[1]


def test_decision_model_is_strict() -> None:
    with pytest.raises(ValueError):
        Decision.model_validate(
            {
                "handoff": "0001-plan",
                "run": "r",
                "action": "approve",
                "reviewer": "a\u202eb",
                "decided_at": "2026-01-01T00:00:00.000Z",
                "sha256": "0" * 64,
                "verdict": "approvable",
            }
        )


def test_a_decision_that_stands_is_reported_as_made_when_its_log_fails(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hid = submit(run, PLAN, phase="plan", schema_id="plan/v1").id
    log = run / AUDIT_FILE
    log.rename(run / "old.jsonl")
    log.mkdir()  # the next append cannot open the log
    warnings: list[str] = []
    decision = decide(run, hid, "approve", registry=REGISTRY, on_warning=warnings.append)
    assert decision.action == "approve"
    assert len(warnings) == 1 and "not logged" in warnings[0]
    assert _settle(run, hid, None) is HandoffState.APPROVED


def test_each_refusal_is_logged_once_however_often_wait_settles(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    hid = _plan(run, keys)
    _approve_unsigned(run, hid)
    seen: set[str] = set()
    first = record_refusals(STORE, run, hid, settle(STORE, run, hid, REGISTRY, policy), seen)
    again = record_refusals(STORE, run, hid, settle(STORE, run, hid, REGISTRY, policy), seen)
    assert len(first) == 1 and again == []
    refused = [
        e for e in audit.read_events(run, FilesystemStore()) if e["event"] == "decision_refused"
    ]
    assert [e["why"] for e in refused] == first
    assert verify_run(run, STORE, policy) == []


def _forge(run: Path, hid: str, principal: str, key: Path, sha256: str | None = None) -> None:
    """What an agent holding some listed key can do: sign a record itself, skip decide."""
    digest = sha256 or hashlib.sha256((run / "handoffs" / f"{hid}.json").read_bytes()).hexdigest()
    lines = (run / AUDIT_FILE).read_bytes().splitlines()
    fields = {
        "run": run.name,
        "handoff": hid,
        "sha256": digest,
        "action": "approve",
        "reason": None,
        "category": None,
        "principal": principal,
        "at": "2026-11-30T20:00:00.000Z",
        "log_head": line_hash(lines[-1]),
    }
    record = {
        **{k: v for k, v in fields.items() if k != "at"},
        "decided_at": fields["at"],
        "reviewer": principal,
        "verdict": "approvable",
        "signature": sign(decision_statement(**fields), key),  # type: ignore[arg-type]
    }
    folder = run / "decisions" / hid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{principal}.json").write_text(json.dumps(record))


def test_self_signed_records_by_listed_keys_are_ignored_when_not_allowed(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    run = _run(tmp_path)
    plan = _plan(run, keys)
    review = _plan(run, keys, phase="review")
    _forge(run, plan, "planner", keys["planner"])  # listed, but not an approver of plan
    _forge(run, review, "planner", keys["planner"])  # an approver, but the producer
    _forge(run, plan, "alice", keys["alice"], sha256="0" * 64)  # bound to other bytes
    first = settle(STORE, run, plan, REGISTRY, policy)
    second = settle(STORE, run, review, REGISTRY, policy)
    assert first.outcome is None and second.outcome is None
    reasons = " ".join(first.refused + second.refused)
    assert "not an approver" in reasons
    assert "produced this handoff" in reasons
    assert "other bytes" in reasons
    _forge(run, review, "alice", keys["alice"])
    assert _settle(run, review, policy) is HandoffState.APPROVED


def test_a_waiter_under_a_policy_is_woken_by_each_approvers_record(
    tmp_path: Path, keys: dict[str, Path], policy: Policy
) -> None:
    """Approvals land in ``decisions/{id}/``: once that folder exists the waiter watches
    it, so the second approval is an event, not a wait for the next periodic look."""
    run = _run(tmp_path)
    hid = _plan(run, keys)
    blocked = threading.Event()
    results: list[WaitOutcome] = []

    def waiting() -> None:
        result = wait(
            run, hid, registry=REGISTRY, policy=policy, timeout=60, on_block=lambda _: blocked.set()
        )
        results.append(result.outcome)

    waiter = threading.Thread(target=waiting)
    waiter.start()
    assert blocked.wait(60)
    decide(run, hid, "approve", registry=REGISTRY, key=SigningKey(keys["alice"]), policy=policy)
    folder = run / "decisions" / hid
    deadline = time.monotonic() + 60
    while folder not in fs_watch.watched_directories():
        assert time.monotonic() < deadline, "the waiter never moved to the approvals folder"
        time.sleep(0.01)
    assert not results
    decide(run, hid, "approve", registry=REGISTRY, key=SigningKey(keys["bob"]), policy=policy)
    waiter.join(60)
    assert results == [WaitOutcome.APPROVED]
