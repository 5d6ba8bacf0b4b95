"""A signed decision is a decision to every reader: without ``--policy`` it is shown
(its signature not checked) and no second record is added on top of it (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, submit
from signed_policy import key_line, signed_policy


def _signed_approval(tmp_path: Path) -> tuple[Path, str]:
    trust = signed_policy(tmp_path / "trust")
    run = tmp_path / "run"
    handoff_id = submit(run)
    done = cli(
        "decide", str(run), handoff_id, "approve",
        "--key", str(trust.alice), "--policy", str(trust.policy),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return run, handoff_id


def test_list_show_and_wait_without_a_policy_see_the_signed_approval(tmp_path: Path) -> None:
    run, handoff_id = _signed_approval(tmp_path)
    (row,) = json.loads(cli("list", str(run), "--json").stdout)
    assert row["state"] == "approved" and row["reviewer"] == "alice"
    assert row["signature"] == "unchecked"
    assert "signature=unchecked(no-policy)" in cli("list", str(run)).stdout
    shown = cli("show", str(run), handoff_id).stdout
    assert "approved by alice" in shown and "signature not checked: no policy" in shown
    waited = cli("wait", str(run), handoff_id, "--timeout", "0")
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["problem_statement"].startswith("Estimate")


def test_decide_without_a_policy_adds_nothing_on_top_of_a_signed_decision(
    tmp_path: Path,
) -> None:
    run, handoff_id = _signed_approval(tmp_path)
    single = cli("decide", str(run), handoff_id, "reject", "--reason", "late")
    assert single.returncode == 1
    assert "already approved by alice" in single.stderr and single.stderr.count("\n") == 1
    batch = cli("decide", str(run), "--pending", "approve")
    assert batch.returncode == 0 and batch.stdout == ""  # nothing pending: it is decided
    assert not (run / "decisions" / f"{handoff_id}.json").exists()  # no unsigned record


def _two_approvers(folder: Path) -> tuple[Path, Path, Path]:
    """A policy where alice or bob approves ``plan`` (one is enough); their keys."""
    folder.mkdir(parents=True)
    keys = {name: folder / name for name in ("alice", "bob")}
    signers = "".join(
        f'{name} namespaces="handoff-gate" {key_line(key)}\n' for name, key in keys.items()
    )
    (folder / "allowed_signers").write_text(signers)
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n'
        '[[rule]]\nphase = "plan"\napprovers = ["alice", "bob"]\nrequired = 1\n'
    )
    return policy, keys["alice"], keys["bob"]


def test_under_a_policy_a_counted_approval_takes_no_second_one_but_a_veto(
    tmp_path: Path,
) -> None:
    policy, alice, bob = _two_approvers(tmp_path / "trust")
    run = tmp_path / "run"
    handoff_id = submit(run)
    common = ["--policy", str(policy)]
    first = cli("decide", str(run), handoff_id, "approve", "--key", str(alice), *common)
    assert first.returncode == 0, first.stderr
    again = cli("decide", str(run), handoff_id, "approve", "--key", str(bob), *common)
    assert again.returncode == 1 and again.stderr.count("\n") == 1
    assert "already approved by alice" in again.stderr
    assert "nothing more is recorded" in again.stderr
    batch = cli("decide", str(run), "--pending", "approve", "--key", str(bob), *common)
    assert batch.returncode == 0 and batch.stdout == ""  # approved: nothing pending
    veto = cli(
        "decide", str(run), handoff_id, "reject", "--reason", "wrong quarter",
        "--key", str(bob), *common,
    )  # fmt: skip
    assert veto.returncode == 0, veto.stderr  # the rule's way to stop it before delivery
    late = cli("decide", str(run), handoff_id, "reject", "--reason", "me too",
               "--key", str(alice), *common)  # fmt: skip
    assert late.returncode == 1 and "already" in late.stderr
    (row,) = json.loads(cli("list", str(run), *common, "--json").stdout)
    assert row["state"] == "rejected"
    assert sorted(p.name for p in (run / "decisions" / handoff_id).iterdir()) == [
        "alice.json",
        "bob.json",
    ]
