"""Issue 19, item 1: a veto is a veto.

Acting as the agent the gate guards (a shell as the pipeline's OS account, another uid
through ``setpriv``): in a run made by ``handoff-gate init`` it cannot remove, replace or
pre-empt a reviewer's signed reject, even racing it; in any run, junk it plants in a
reviewer's slot is set aside so the reviewer's reject still lands and counts; and a wait
under a policy on a run without that separation says so (``--strict``: exit 2).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import planted
import pytest
from cli_helpers import BOUND, cli, submit
from other_account import (
    PIPELINE_UID,
    REVIEWER_UID,
    REVIEWERS_GID,
    account_python,
    as_account,
    as_pipeline,
    gate_as,
    gate_command,
    shared_folder,
    submit_as_pipeline,
)

POLICY = """\
allowed_signers = "allowed_signers"

[[rule]]
phase = "plan"
approvers = ["alice", "bob"]
required = 1
"""
#: A second reviewer's account, in the same reviewers' group.
BOB_UID = REVIEWER_UID - 2
WARNING = "a same-account agent can remove a reviewer's veto"


def _trust(folder: Path) -> tuple[Path, dict[str, Path]]:
    """Keys for alice and bob, each readable by its own account only, and the policy."""
    trust = folder / "trust"
    trust.mkdir(mode=0o755)
    keys, lines = {}, []
    for name, uid in (("alice", REVIEWER_UID), ("bob", BOB_UID)):
        key = trust / name
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        os.chown(key, uid, REVIEWERS_GID)
        keys[name] = key
        lines.append(f"{name} {' '.join(key.with_suffix('.pub').read_text().split()[:2])}")
    (trust / "allowed_signers").write_text("\n".join(lines) + "\n")
    (trust / "policy.toml").write_text(POLICY)
    return trust / "policy.toml", keys


def _init_run(root: Path) -> Path:
    run = root / "run"
    done = cli("init", str(run), "--pipeline", str(PIPELINE_UID), "--reviewers", str(REVIEWERS_GID))
    assert done.returncode == 0, done.stderr
    return run


def _decide_as(uid: int, run: Path, hid: str, action: str, key: Path, policy: Path) -> None:
    done = _deciding_as(uid, run, hid, action, key, policy)
    assert done.returncode == 0, done.stderr


def _approval_after_the_veto_refused(
    uid: int, run: Path, hid: str, key: Path, policy: Path
) -> None:
    """A second reviewer's approval after a veto: the policy's rule already rejects the
    handoff, so nothing more is recorded, said in one line (exit 1)."""
    done = _deciding_as(uid, run, hid, "approve", key, policy)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "already rejected by alice" in done.stderr
    assert "nothing more is recorded" in done.stderr


def _deciding_as(
    uid: int, run: Path, hid: str, action: str, key: Path, policy: Path
) -> subprocess.CompletedProcess[str]:
    extra = ["--reason", "wrong quarter"] if action == "reject" else []
    return gate_as(
        uid,
        REVIEWERS_GID,
        "decide",
        str(run),
        hid,
        action,
        *extra,
        "--key",
        str(key),
        "--policy",
        str(policy),
    )


#: What the agent tries on the decisions folder, as a script run under its own uid.
ATTACK = """
import os, sys
decisions = sys.argv[1]
hid = sys.argv[2]
tries = {
    "unlink": lambda: os.unlink(os.path.join(decisions, hid, "alice.json")),
    "replace": lambda: os.rename(
        os.path.join(decisions, hid, "alice.json"), os.path.join(decisions, "..", "taken")
    ),
    "plant": lambda: open(os.path.join(decisions, hid, "bob.json"), "x").close(),
    "mkdir": lambda: os.mkdir(os.path.join(decisions, "0099-plan")),
    "move folder": lambda: os.rename(decisions, decisions + ".old"),
    "chmod": lambda: os.chmod(decisions, 0o777),
}
for name, attempt in tries.items():
    try:
        attempt()
    except PermissionError:
        continue
    print("succeeded:", name)
"""


def test_init_keeps_decisions_from_the_pipeline() -> None:
    with shared_folder() as root:
        policy, keys = _trust(root)
        run = _init_run(root)
        hid = submit_as_pipeline(run)
        _decide_as(REVIEWER_UID, run, hid, "reject", keys["alice"], policy)
        attack = subprocess.run(
            [
                *as_account(PIPELINE_UID, PIPELINE_UID),
                account_python(),
                "-c",
                ATTACK,
                str(run / "decisions"),
                hid,
            ],
            capture_output=True,
            text=True,
            timeout=BOUND,
            check=True,
        )
        assert attack.stdout == ""
        _approval_after_the_veto_refused(BOB_UID, run, hid, keys["bob"], policy)
        assert sorted(p.name for p in (run / "decisions" / hid).iterdir()) == ["alice.json"]
        waited = as_pipeline(
            "wait", str(run), hid, "--policy", str(policy), "--strict", "--timeout", "5"
        )
    assert waited.returncode == 1, waited.stderr
    assert "rejected by alice" in waited.stderr
    assert WARNING not in waited.stderr


#: The pipeline rewrites its own handoff: the same payload, ``created`` a millisecond
#: later, written beside it and renamed over it (its own folder lets it).
REWRITE = """
import json, os, sys
path = sys.argv[1]
envelope = json.loads(open(path, "rb").read())
stamp = envelope["created"]
envelope["created"] = stamp[:-4] + ("001" if stamp[-4:-1] != "001" else "002") + "Z"
fresh = path + ".new"
with open(fresh, "w") as out:
    json.dump(envelope, out)
os.replace(fresh, path)
"""


def test_a_signed_reject_survives_the_pipeline_rewriting_its_own_handoff() -> None:
    """Issue 31, attack 1: after alice's signed reject the pipeline replaces its file by
    one with other bytes; bob's approval is refused. The veto is bound to the handoff id: every
    reader says rejected, naming the rewrite, and nothing is delivered."""
    with shared_folder() as root:
        policy, keys = _trust(root)
        run = _init_run(root)
        hid = submit_as_pipeline(run)
        _decide_as(REVIEWER_UID, run, hid, "reject", keys["alice"], policy)
        before = (run / "handoffs" / f"{hid}.json").read_bytes()
        rewrite = subprocess.run(
            [*as_account(PIPELINE_UID, PIPELINE_UID), account_python(), "-c", REWRITE,
             str(run / "handoffs" / f"{hid}.json")],
            capture_output=True, text=True, timeout=BOUND, cwd="/",
        )  # fmt: skip
        assert rewrite.returncode == 0, rewrite.stderr
        assert (run / "handoffs" / f"{hid}.json").read_bytes() != before
        _approval_after_the_veto_refused(BOB_UID, run, hid, keys["bob"], policy)
        shown = cli("show", str(run), hid, "--policy", str(policy))
        listed = cli("list", str(run), "--policy", str(policy), "--json")
        waited = as_pipeline(
            "wait", str(run), hid, "--policy", str(policy), "--strict", "--timeout", "5"
        )
    assert "state: rejected" in shown.stdout, shown.stdout
    assert "changed after submit" in shown.stdout
    assert json.loads(listed.stdout)[0]["state"] == "rejected"
    assert waited.returncode == 1, waited.stderr
    assert waited.stdout == ""
    assert "rejected by alice" in waited.stderr


def test_a_withdrawal_planted_after_a_signed_reject_leaves_the_reject_and_its_reason() -> None:
    """Issue 31, attack 6: ``withdraw`` refuses a decided handoff, but ``withdrawals/`` is
    the pipeline's folder, so it can write one there itself. The waiter still gets the
    reject (exit 1) and the reviewer's reason, not ``withdrawn`` (exit 6)."""
    with shared_folder() as root:
        policy, keys = _trust(root)
        run = _init_run(root)
        hid = submit_as_pipeline(run)
        _decide_as(REVIEWER_UID, run, hid, "reject", keys["alice"], policy)
        refused = as_pipeline("withdraw", str(run), hid, "--reason", "never mind")
        # without a policy too, alice's signed reject is a decision every reader sees
        assert refused.returncode == 1 and "already rejected" in refused.stderr
        under = as_pipeline("withdraw", str(run), hid, "--policy", str(policy))
        assert under.returncode == 1 and "already rejected" in under.stderr
        planted = subprocess.run(
            [*as_account(PIPELINE_UID, PIPELINE_UID), account_python(), "-c",
             "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text('{}')",
             str(run / "withdrawals" / hid)],
            capture_output=True, text=True, timeout=BOUND, cwd="/",
        )  # fmt: skip
        assert planted.returncode == 0, planted.stderr
        waited = as_pipeline("wait", str(run), hid, "--policy", str(policy), "--timeout", "5")
        shown = cli("show", str(run), hid, "--policy", str(policy))
    assert waited.returncode == 1, waited.stderr
    assert "rejected by alice" in waited.stderr and "wrong quarter" in waited.stderr
    assert "state: rejected" in shown.stdout


#: The racer: every record that appears in the handoff's folder is deleted at once, from
#: the moment it says it is ready until its stdin closes (the test closes it once the
#: waiter has answered; ``argv[2]`` seconds bound it all the same). It ran a fixed 8 s
#: before, a whole core spinning for seconds after the waiter had answered.
RACER = """
import os, sys, threading, time
folder, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
removed = refused = 0
print("ready", flush=True)
while not stop.is_set() and time.monotonic() < deadline:
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        continue
    for name in names:
        try:
            os.unlink(os.path.join(folder, name))
            removed += 1
        except PermissionError:
            refused += 1
        except FileNotFoundError:
            pass
print(removed, refused)
"""


def _watching(pid: int) -> None:
    """Until process ``pid`` holds an inotify watch: the waiter is blocked on the decisions
    folder, so the reject lands while it waits (a fixed half second stood in for this)."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                if "inotify" in os.readlink(f"/proc/{pid}/fd/{fd}"):
                    return
        time.sleep(0.01)
    raise AssertionError(f"the waiter {pid} never watched its decisions folder")


def test_a_racer_cannot_delete_a_reject_before_the_waiter_sees_it() -> None:
    with shared_folder() as root:
        policy, keys = _trust(root)
        run = _init_run(root)
        hid = submit_as_pipeline(run)
        waiter = subprocess.Popen(
            [
                *as_account(PIPELINE_UID, PIPELINE_UID),
                *gate_command(),
                "wait",
                str(run),
                hid,
                "--policy",
                str(policy),
                "--timeout",
                str(BOUND),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd="/",
        )
        racer = subprocess.Popen(
            [
                *as_account(PIPELINE_UID, PIPELINE_UID),
                account_python(),
                "-c",
                RACER,
                str(run / "decisions" / hid),
                str(BOUND),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
        )
        assert racer.stdout is not None and racer.stdout.readline() == "ready\n"
        _watching(waiter.pid)
        _decide_as(REVIEWER_UID, run, hid, "reject", keys["alice"], policy)
        _approval_after_the_veto_refused(BOB_UID, run, hid, keys["bob"], policy)
        out, err = waiter.communicate(timeout=BOUND)
        raced, _ = racer.communicate(timeout=BOUND)
    assert waiter.returncode == 1, err
    assert out == "" and "rejected by alice" in err
    removed, refused = map(int, raced.split())
    assert removed == 0 and refused > 0


def _junk_bytes(path: Path) -> None:
    path.write_bytes(b"\x00not a decision")


def _forged(path: Path) -> None:
    path.write_text('{"format": "handoff-gate-decision/1", "principal": "alice"}')


PLANTS = {
    "junk": _junk_bytes,
    "fifo": planted.fifo,
    "symlink": planted.symlink,
    "directory": planted.directory,
    "forged": _forged,
}


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_a_planted_slot_does_not_keep_a_reject_out(tmp_path: Path, kind: str) -> None:
    policy, keys = _trust(tmp_path)
    run = tmp_path / "run"
    hid = submit(run)
    (run / "decisions" / hid).mkdir()
    PLANTS[kind](run / "decisions" / hid / "alice.json")
    common = ["--policy", str(policy)]
    rejected = cli(
        "decide", str(run), hid, "reject", "--reason", "no", "--key", str(keys["alice"]), *common
    )
    assert rejected.returncode == 0, rejected.stderr
    approved = cli("decide", str(run), hid, "approve", "--key", str(keys["bob"]), *common)
    assert approved.returncode == 1 and "nothing more is recorded" in approved.stderr
    waited = cli("wait", str(run), hid, *common, "--timeout", "5")
    assert waited.returncode == 1, waited.stderr
    assert waited.stdout == "" and "rejected by alice" in waited.stderr
    again = cli("decide", str(run), hid, "approve", "--key", str(keys["alice"]), *common)
    assert again.returncode == 1 and "already rejected" in again.stderr
    logged = cli("audit", str(run), "--json").stdout
    assert "not their signed record; set aside" in logged
    aside = [p.name for p in (run / "decisions" / hid).iterdir() if p.name.startswith(".")]
    assert len(aside) == 1 and aside[0].startswith(".alice.json.")


def test_a_file_planted_as_the_handoffs_folder_does_not_keep_a_reject_out(
    tmp_path: Path,
) -> None:
    policy, keys = _trust(tmp_path)
    run = tmp_path / "run"
    hid = submit(run)
    (run / "decisions" / hid).write_text("junk")
    rejected = cli(
        "decide",
        str(run),
        hid,
        "reject",
        "--reason",
        "no",
        "--key",
        str(keys["alice"]),
        "--policy",
        str(policy),
    )
    assert rejected.returncode == 0, rejected.stderr
    waited = cli("wait", str(run), hid, "--policy", str(policy), "--timeout", "5")
    assert waited.returncode == 1 and "rejected by alice" in waited.stderr


def test_a_same_account_run_warns_and_strict_refuses(tmp_path: Path) -> None:
    policy, _ = _trust(tmp_path)
    run = tmp_path / "run"
    hid = submit(run)
    warned = cli("wait", str(run), hid, "--policy", str(policy), "--timeout", "0")
    assert warned.returncode == 3
    assert warned.stderr.count(WARNING) == 1
    assert "handoff-gate init RUN --pipeline USER --reviewers GROUP" in warned.stderr
    assert "PostgreSQL" in warned.stderr
    strict = cli("wait", str(run), hid, "--policy", str(policy), "--strict", "--timeout", "0")
    assert strict.returncode == 2 and strict.stdout == ""
    assert strict.stderr.startswith("handoff-gate wait: --strict: " + WARNING)


def test_init_refuses_an_existing_run_and_unknown_accounts(tmp_path: Path) -> None:
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("init needs root")
    run = tmp_path / "run"
    submit(run)
    again = cli("init", str(run), "--pipeline", "1", "--reviewers", "1")
    assert again.returncode == 2 and "is a run already" in again.stderr
    nobody = cli("init", str(tmp_path / "new"), "--pipeline", "no-such-user-x", "--reviewers", "1")
    assert nobody.returncode == 2 and "no such user" in nobody.stderr
    root = cli("init", str(tmp_path / "new"), "--pipeline", "0", "--reviewers", "1")
    assert root.returncode == 2 and "must not be root" in root.stderr
    assert not (tmp_path / "new").exists()


def test_junk_in_one_slot_is_reported_and_stops_no_other_record(tmp_path: Path) -> None:
    policy, keys = _trust(tmp_path)
    run = tmp_path / "run"
    hid = submit(run)
    (run / "decisions" / hid).mkdir()
    os.mkfifo(run / "decisions" / hid / "alice.json")
    common = ["--policy", str(policy)]
    approved = cli("decide", str(run), hid, "approve", "--key", str(keys["bob"]), *common)
    assert approved.returncode == 0, approved.stderr
    waited = cli("wait", str(run), hid, *common, "--timeout", "5")
    assert waited.returncode == 0, waited.stderr
    assert f"{hid}: alice: empty, or not a readable regular file" in waited.stderr
