"""Who a signed decision names is who signed it.

``reviewer`` is not covered by the signature, so a record signed by alice that says
``"reviewer": "bob"`` must never let ``list``, ``show`` or ``wait`` say "approved by bob".
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, submit
from trust_helpers import Keys, forge_decision

from handoff_gate.gates.audit.log import now_iso


def _policy(tmp_path: Path, keys: Keys) -> str:
    trust = tmp_path / "trust"
    trust.mkdir()
    (trust / "allowed_signers").write_text(
        f"alice {keys.public(keys.alice)}\nbob {keys.public(keys.bob)}\n"
    )
    (trust / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\n'
        'approvers = ["alice", "bob"]\n'
    )
    return str(trust / "policy.toml")


def test_alices_signature_is_never_shown_as_bobs_approval(tmp_path: Path, keys: Keys) -> None:
    policy = _policy(tmp_path, keys)
    run = tmp_path / "run"
    hid = submit(run)
    forge_decision(run, hid, keys.alice, "alice", now_iso(), reviewer="bob")
    listed = cli("list", str(run), "--json", "--policy", policy)
    assert listed.returncode == 0, listed.stderr
    assert [(row["state"], row["reviewer"]) for row in json.loads(listed.stdout)] == [
        ("pending", None)
    ]
    shown = cli("show", str(run), hid, "--policy", policy)
    assert "by bob" not in shown.stdout
    waited = cli("wait", str(run), hid, "--timeout", "0.5", "--policy", policy)
    assert waited.returncode == 3 and "by bob" not in waited.stderr
    assert f"{hid}: alice: decision for {hid} is not a valid decision file" in waited.stderr


def test_a_signed_decide_records_its_principal_as_reviewer(tmp_path: Path, keys: Keys) -> None:
    policy = _policy(tmp_path, keys)
    run = tmp_path / "run"
    hid = submit(run)
    signing = ("--key", str(keys.alice), "--policy", policy)
    done = cli("decide", str(run), hid, "approve", "--reviewer", "Alice Smith", *signing)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{hid} approved by alice"
    listed = json.loads(cli("list", str(run), "--json", "--policy", policy).stdout)
    assert [(row["state"], row["reviewer"]) for row in listed] == [("approved", "alice")]
