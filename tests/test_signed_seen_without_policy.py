"""A signed decision is a decision to every reader: without ``--policy`` it is shown
(its signature not checked) and no second record is added on top of it (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, submit
from signed_policy import signed_policy


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
