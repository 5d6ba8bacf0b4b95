"""Signed decisions through the real command line: keys, a policy with a quorum, pinning.

An agent with a shell can run every command here; what stops it is that it holds no
approver's key, and that the pipeline pins the policy it waits under.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_helpers import BOUND, PLAN_BYTES, cli, start_wait, submit

from handoff_gate.gates.audit.log import read_events
from handoff_gate.gates.store.filesystem import FilesystemStore

POLICY = """\
allowed_signers = "allowed_signers"

[[rule]]
phase = "plan"
approvers = ["alice", "bob"]
required = 2
"""


def _key(folder: Path, name: str) -> Path:
    path = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path], check=True
    )
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {name: _key(folder, name) for name in ("alice", "bob", "mallory")}


@pytest.fixture
def policy(tmp_path: Path, keys: dict[str, Path]) -> Path:
    trust = tmp_path / "trust"
    trust.mkdir()
    lines = [
        f"{name} {' '.join(keys[name].with_suffix('.pub').read_text().split()[:2])}"
        for name in ("alice", "bob")
    ]
    (trust / "allowed_signers").write_text("\n".join(lines) + "\n")
    (trust / "policy.toml").write_text(POLICY)
    return trust / "policy.toml"


def _decide(
    run: Path, hid: str, key: Path, policy: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    return cli(
        "decide", str(run), hid, "approve", "--key", str(key), "--policy", str(policy), *extra
    )


def test_a_quorum_of_signed_approvals_releases_the_wait(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    digest = cli("policy", str(policy)).stdout.split("sha256 ")[-1].strip()
    waiter = start_wait(run, hid, "--policy", str(policy), "--policy-sha256", digest)
    try:
        assert _decide(run, hid, keys["alice"], policy).returncode == 0
        listed = json.loads(cli("list", str(tmp_path), "--json", "--policy", str(policy)).stdout)
        assert [row["state"] for row in listed] == ["pending"]
        assert waiter.poll() is None, "one approval of two released the wait"
        assert _decide(run, hid, keys["bob"], policy).returncode == 0
        out, err = waiter.communicate(timeout=BOUND)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert waiter.returncode == 0, err
    assert json.loads(out)["problem_statement"]
    assert cli("audit", str(run), "--verify", "--policy", str(policy)).returncode == 0


def test_keys_that_may_not_decide_are_refused_up_front(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    refused = _decide(run, hid, keys["mallory"], policy)
    assert refused.returncode == 1
    assert "alice" in refused.stderr and "bob" in refused.stderr
    assert not (run / "decisions" / hid).exists()
    unsigned = cli("decide", str(run), hid, "approve", "--reviewer", "security-lead@corp")
    assert unsigned.returncode == 0  # written to the unsigned slot, which the policy ignores
    waited = cli("wait", str(run), hid, "--timeout", "0.5", "--policy", str(policy))
    assert waited.returncode == 3
    assert "ignored" in waited.stderr
    assert any(e["event"] == "decision_refused" for e in read_events(run, FilesystemStore()))


def test_a_widened_policy_fails_its_pin(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    digest = cli("policy", str(policy)).stdout.split("sha256 ")[-1].strip()
    signers = policy.parent / "allowed_signers"
    mallory = " ".join(keys["mallory"].with_suffix(".pub").read_text().split()[:2])
    signers.write_text(signers.read_text() + f"alice {mallory}\n")
    waited = cli(
        "wait", str(run), hid, "--timeout", "0", "--policy", str(policy), "--policy-sha256", digest
    )
    assert waited.returncode == 2
    assert "not the one pinned" in waited.stderr


def test_decide_binds_to_the_reviewed_bytes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    checked = cli("check", str(run / "handoffs" / f"{hid}.json"))
    sha256 = checked.stdout.split("sha256 ")[1].split()[0]
    wrong = cli("decide", str(run), hid, "approve", "--sha256", "0" * 64)
    assert wrong.returncode == 1 and "changed since it was reviewed" in wrong.stderr
    assert cli("decide", str(run), hid, "approve", "--sha256", sha256).returncode == 0


def test_decide_says_which_digest_when_given_the_payloads(tmp_path: Path) -> None:
    """``check plan.json`` prints the payload's sha256; decide binds to the handoff
    file's. Given the first, decide says so and names the second, instead of 'changed'."""
    run = tmp_path / "run"
    hid = submit(run)
    payload = tmp_path / "plan.json"
    payload.write_bytes(PLAN_BYTES)
    bare = cli("check", str(payload), "--schema", "plan/v1").stdout.split("sha256 ")[1].split()[0]
    stored = cli("check", str(run / "handoffs" / f"{hid}.json"))
    stored_sha = stored.stdout.split("sha256 ")[1].split()[0]
    assert bare != stored_sha
    given = cli("decide", str(run), hid, "approve", "--sha256", bare)
    assert given.returncode == 1
    assert "names the payload's sha256" in given.stderr and stored_sha in given.stderr
    assert "changed" not in given.stderr
    assert cli("decide", str(run), hid, "approve", "--sha256", stored_sha).returncode == 0


def test_audit_prints_the_history_and_verify_finds_a_tampered_log(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    assert cli("decide", str(run), hid, "reject", "--reason", "no baseline").returncode == 0
    printed = cli("audit", str(run))
    assert printed.returncode == 0
    assert "decision_written" in printed.stdout and "no baseline" in printed.stdout
    events = [json.loads(line) for line in cli("audit", str(run), "--json").stdout.splitlines()]
    assert [e["event"] for e in events] == ["handoff_submitted", "decision_written"]
    log = run / "audit.jsonl"
    log.write_text(log.read_text().replace("no baseline", "approved by ceo"))
    verified = cli("audit", str(run), "--verify")
    assert verified.returncode == 1
    assert verified.stdout.strip()


def test_a_signed_handoff_names_its_producer(tmp_path: Path, keys: dict[str, Path]) -> None:
    trust = tmp_path / "trust"
    trust.mkdir()
    public = " ".join(keys["alice"].with_suffix(".pub").read_text().split()[:2])
    bob = " ".join(keys["bob"].with_suffix(".pub").read_text().split()[:2])
    (trust / "allowed_signers").write_text(f"planner {public}\nbob {bob}\n")
    (trust / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["bob"]\nproducers = ["planner"]\n'
    )
    policy = trust / "policy.toml"
    run = tmp_path / "run"
    signed = cli(
        "submit",
        str(run),
        "--phase",
        "plan",
        "--schema",
        "plan/v1",
        "--key",
        str(keys["alice"]),
        "--policy",
        str(policy),
        "-",
        stdin=PLAN_BYTES,
    )
    assert signed.returncode == 0, signed.stderr
    hid = signed.stdout.strip()
    assert (
        cli("check", str(run / "handoffs" / f"{hid}.json"), "--policy", str(policy)).returncode == 0
    )
    unsigned = submit(run)
    report = cli(
        "check", str(run / "handoffs" / f"{unsigned}.json"), "--policy", str(policy), "--json"
    )
    assert report.returncode == 1
    assert "unsigned_handoff" in {f["code"] for f in json.loads(report.stdout)["findings"]}


def test_a_file_that_is_not_a_key_is_a_usage_error(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    bad = tmp_path / "not-a-key"
    bad.write_text("hello\n")
    done = cli("decide", str(run), hid, "approve", "--key", str(bad), "--policy", str(policy))
    assert done.returncode == 2
    assert "not an OpenSSH private key" in done.stderr and "Traceback" not in done.stderr
    producing = policy.parent / "producing.toml"
    mallory = " ".join(keys["mallory"].with_suffix(".pub").read_text().split()[:2])
    with (policy.parent / "allowed_signers").open("a") as signers:
        signers.write(f"planner {mallory}\n")
    producing.write_text(POLICY + 'producers = ["planner"]\n')
    signing = ("--key", str(bad), "--policy", str(producing))
    made = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", *signing, "-")
    assert made.returncode == 2
    assert "not an OpenSSH private key" in made.stderr and "Traceback" not in made.stderr


@pytest.mark.parametrize("pin", ["", "abc", "g" * 64, "0" * 63, "0" * 65])
def test_a_malformed_pin_is_an_argument_error_never_no_pin(
    tmp_path: Path, policy: Path, pin: str
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    waited = cli(
        "wait", str(run), hid, "--timeout", "0", "--policy", str(policy), f"--policy-sha256={pin}"
    )
    assert waited.returncode == 2, waited.stderr
    assert "64 hex digits" in waited.stderr
    assert (
        read_events(run, FilesystemStore())[-1]["event"] == "handoff_submitted"
    )  # it never looked


def test_an_upper_case_pin_is_the_same_pin(tmp_path: Path, policy: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    digest = cli("policy", str(policy)).stdout.split("sha256 ")[-1].strip()
    pinned = ("--policy", str(policy), "--policy-sha256", digest.upper())
    assert cli("wait", str(run), hid, "--timeout", "0", *pinned).returncode == 3


def _signers(policy: Path, lines: list[str]) -> None:
    (policy.parent / "allowed_signers").write_text("\n".join(lines) + "\n")


def test_one_key_under_two_approver_names_is_refused(keys: dict[str, Path], policy: Path) -> None:
    alice = " ".join(keys["alice"].with_suffix(".pub").read_text().split()[:2])
    _signers(policy, [f"alice {alice}", f"bob {alice}"])
    checked = cli("policy", str(policy))
    assert checked.returncode == 2
    assert "'alice' and 'bob' may sign with one key" in checked.stderr
    run = policy.parent.parent / "run"
    hid = submit(run)
    assert cli("wait", str(run), hid, "--timeout", "0", "--policy", str(policy)).returncode == 2


def test_a_producers_key_among_the_approvers_is_refused(
    keys: dict[str, Path], policy: Path
) -> None:
    public = {n: " ".join(keys[n].with_suffix(".pub").read_text().split()[:2]) for n in keys}
    _signers(
        policy, [f"alice {public['alice']}", f"bob {public['bob']}", f"planner {public['bob']}"]
    )
    policy.write_text(POLICY + 'producers = ["planner"]\n')
    checked = cli("policy", str(policy))
    assert checked.returncode == 2
    assert "producer 'planner' may sign with the key of approver 'bob'" in checked.stderr


@pytest.mark.parametrize("char", ["\u202e", "\u009b", "\u200b"])
def test_policy_text_reaches_the_terminal_made_visible(
    keys: dict[str, Path], policy: Path, char: str
) -> None:
    alice = " ".join(keys["alice"].with_suffix(".pub").read_text().split()[:2])
    _signers(policy, [f"alice {alice}", f"bo{char}b {alice}"])
    policy.write_text(POLICY.replace('"bob"', f'"bo{char}b"'))
    checked = cli("policy", str(policy))
    assert checked.returncode == 2
    assert "not a principal name" in checked.stderr
    assert char not in checked.stdout + checked.stderr
    extra = cli("policy", str(policy), f"x{char}y")
    assert extra.returncode == 2 and "unrecognized arguments" in extra.stderr
    assert char not in extra.stderr and f"U+{ord(char):04X}" in extra.stderr


def test_a_malformed_decide_digest_is_an_argument_error(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    done = cli("decide", str(run), hid, "approve", "--sha256", "abc")
    assert done.returncode == 2
    assert "64 hex digits" in done.stderr
    assert list((run / "decisions").iterdir()) == []


def _with_policy_env(policy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli(*args, env={**os.environ, "HANDOFF_GATE_POLICY": str(policy)})


def test_an_unsigned_decide_under_a_policy_is_refused_saying_a_key_is_needed(
    tmp_path: Path, policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    for done in (
        cli("decide", str(run), hid, "approve", "--policy", str(policy)),
        _with_policy_env(policy, "decide", str(run), hid, "approve"),
    ):
        assert done.returncode == 1, done.stderr
        assert "only signed decisions count" in done.stderr and "--key" in done.stderr
        assert "approved" not in done.stdout
    assert list((run / "decisions").iterdir()) == []
    refused = [e for e in read_events(run, FilesystemStore()) if e["event"] == "decision_refused"]
    assert len(refused) == 2 and "only signed decisions count" in refused[0]["why"]


def test_a_key_that_is_not_an_approver_is_refused_in_the_audit_log(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    assert _decide(run, hid, keys["mallory"], policy).returncode == 1
    refused = [e for e in read_events(run, FilesystemStore()) if e["event"] == "decision_refused"]
    assert [e["handoff"] for e in refused] == [hid]
    assert "who may: alice, bob" in refused[0]["why"]


def test_list_and_show_under_the_environments_policy_report_its_standing(
    tmp_path: Path, keys: dict[str, Path], policy: Path
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    assert _decide(run, hid, keys["alice"], policy).returncode == 0  # one of two
    listed = _with_policy_env(policy, "list", str(run), "--json")
    assert [row["state"] for row in json.loads(listed.stdout)] == ["pending"]
    shown = _with_policy_env(policy, "show", str(run), hid)
    assert "state: pending" in shown.stdout
    assert _decide(run, hid, keys["bob"], policy).returncode == 0
    listed = _with_policy_env(policy, "list", str(run), "--json")
    assert [row["state"] for row in json.loads(listed.stdout)] == ["approved"]
