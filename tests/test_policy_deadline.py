"""Issue 31, attack 5: a policy's ``expires_in`` is a limit on every handoff judged under
the policy, counted from the handoff's ``created``, whether or not its submitter named
the policy (a submit without ``--policy`` writes no ``expires_at``)."""

from __future__ import annotations

import time
from pathlib import Path

from cli_helpers import PLAN_BYTES, cli
from signed_policy import signed_policy


def test_a_handoff_submitted_without_the_policy_expires_under_it(tmp_path: Path) -> None:
    trust = signed_policy(tmp_path / "trust")
    text = trust.policy.read_text().replace(
        'approvers = ["alice"]\n', 'approvers = ["alice"]\nexpires_in = "1s"\n'
    )
    trust.policy.write_text(text)
    run = tmp_path / "job-1"
    hid = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "-",
              stdin=PLAN_BYTES).stdout.strip()  # fmt: skip
    assert "expires_at" not in (run / "handoffs" / f"{hid}.json").read_text()
    time.sleep(1.2)  # past the policy's limit, counted from the handoff's created
    decided = cli("decide", str(run), hid, "approve", "--key", str(trust.alice),
                  "--policy", str(trust.policy))  # fmt: skip
    assert decided.returncode == 1
    assert "expired at" in decided.stderr and "can no longer be decided" in decided.stderr
    waited = cli("wait", str(run), hid, "--policy", str(trust.policy), "--timeout", "0")
    assert waited.returncode == 5, waited.stderr
    assert waited.stdout == ""
    shown = cli("show", str(run), hid, "--policy", str(trust.policy))
    assert "state: expired" in shown.stdout
    # Without the policy nothing limits it: the limit is the policy's, not the handoff's.
    assert "state: pending" in cli("show", str(run), hid).stdout
