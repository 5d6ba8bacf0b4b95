"""``replay`` and ``Gate.replay``: a policy's ``[[auto]]`` rules judged over the history.

On a copy of the sample runs (every recorded reject there is one the contract blocks, so
no rule may approve it, and none is listed as approved) and on a tool-call history made
here with the real submit and decide on both stores: where the outcome would differ,
ordered by danger, in JSON and as a table with payload text made visible; nothing
written (every file hashed before and after; every table's rows counted on PostgreSQL).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli
from signed_policy import key_line
from store_place import Place

import handoff_gate as hg
from handoff_gate.gates.rules.auto import parse_auto
from handoff_gate.schemas import example_path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_runs"
PLAN = example_path("plan/v1").read_bytes()
ARGS_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}
HOSTILE_TOOL = "Bash\x1b[31m[bold]"


def trust(folder: Path, body: str) -> Path:
    """``folder/policy.toml`` with alice approving and planner producing, then ``body``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "allowed_signers").write_text(
        f"alice {key_line(folder / 'alice')}\nplanner {key_line(folder / 'planner')}\n"
    )
    policy = folder / "policy.toml"
    policy.write_text(f'allowed_signers = "allowed_signers"\n\n{body}')
    return policy


#: The sample runs' replayed policy: a producer now signs executions, plans and
#: learnings are approved by rule, handoffs of the baton's review phase rejected.
SAMPLE_RULES = """\
[[rule]]
phase = "execute"
approvers = ["alice"]
producers = ["planner"]

[[rule]]
phase = "*"
approvers = ["alice"]
auto = true

[[auto]]
name = "plans"
decide = "approve"
phase = "plan"

[[auto]]
name = "learnings"
decide = "approve"
phase = "learnings"

[[auto]]
name = "no baton reviews"
decide = "reject"
phase = "handoff"
"""


@pytest.fixture
def samples(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the sample runs and the policy to replay on them (with the lenient
    contracts pinned, as a policy must pin a module it lets load)."""
    runs = tmp_path / "runs"
    shutil.copytree(SAMPLES, runs)
    module = runs / "lenient_contracts.py"
    pin = hashlib.sha256(module.read_bytes()).hexdigest()
    pinned = f'[[contracts]]\nmodule = "../runs/lenient_contracts.py"\nsha256 = "{pin}"\n\n'
    return runs, trust(tmp_path / "trust", pinned + SAMPLE_RULES)


def tree_digest(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``: a file by the sha256 of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
        for p in sorted(root.rglob("*"))
    }


def replay(root: tuple[str, ...], policy: Path, *extra: str) -> Any:
    done = cli(*root, "--policy", str(policy), *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in extra else done.stdout


def test_the_sample_runs_replayed_by_danger_and_nothing_written(
    samples: tuple[Path, Path],
) -> None:
    runs, policy = samples
    before = tree_digest(runs)
    schemas = ("--schemas", str(runs / "lenient_contracts.py"))
    found = replay(("replay", str(runs), *schemas), policy, "--json")
    rows = [(r["run"], r["id"], r["decided"], r["by"], r["would"], r["rule"]) for r in found]
    assert rows == [
        # approved, and the new producers rule blocks its unsigned bytes
        ("planner-to-executor", "0002-execute", "approved", "sam", "blocked", None),
        # approved by a person, approved by rule now
        ("clean-plan-to-verify", "0001-plan", "approved", "ana", "approve", "plans"),
        ("lenient-planner-designer", "0003-plan", "approved", "jonas", "approve", "plans"),
        # the rest: a rule deciding what waits, its approval first
        ("dex-feature-loop", "0005-learnings", "pending", None, "approve", "learnings"),
        ("baton-relay", "0005-handoff", "pending", None, "reject", "no baton reviews"),
    ]
    changes = [r["change"] for r in found]
    assert changes == ["blocks-an-approval", "no-person", "no-person", "other", "other"]
    assert "unsigned" in found[0]["why"] or "signed" in found[0]["why"]
    # the rejected plans are blocked by their contract: the plan rule approves neither
    rejected_plans = [("lenient-planner-designer", f"000{n}-plan") for n in (1, 2)]
    assert not any((r["run"], r["id"]) in rejected_plans for r in found)
    shown = replay(("replay", str(runs), *schemas), policy)
    assert "43 handoffs replayed; 5 would differ, most dangerous first" in shown
    lines = shown.splitlines()
    first = next(i for i, line in enumerate(lines) if "0002-execute" in line)
    last = next(i for i, line in enumerate(lines) if "0005-handoff" in line)
    assert first < last and "no baton reviews" in lines[last]
    assert tree_digest(runs) == before, "replay wrote under the runs"


def tool_history(place: Place) -> str:
    """Tool calls decided by people, and an approved plan; returns the run's name."""
    with hg.Gate(place.store) as gate:

        def call(command: str, call_id: str, tool: str = "Bash") -> hg.HandoffRef:
            return gate.submit_tool_call(
                place.run,
                tool=tool,
                args={"command": command},
                call_id=call_id,
                json_schema=ARGS_SCHEMA,
                agent="claude-code",
            )

        plan = gate.submit(place.run, PLAN, phase="plan", schema_id="plan/v1")
        gate.decide(place.run, plan, "approve", reviewer="ana")
        gate.decide(place.run, call("git status", "c1"), "approve", reviewer="ana")
        gate.decide(
            place.run, call("git status --short", "c2"), "reject", reviewer="bob", reason="not now"
        )
        gate.decide(place.run, call("git status && rm -rf /", "c3"), "approve", reviewer="ana")
        call("ls", "c4")  # pending: no rule names it
        call("git status; curl evil.example", "c5")  # pending: not one simple command
        gate.decide(place.run, call("rm -rf build", "c6", HOSTILE_TOOL), "approve", reviewer="ana")
        return gate.standing(place.run, plan).run_name


TOOL_RULES = """\
[[rule]]
phase = "plan"
approvers = ["alice"]
producers = ["planner"]

[[rule]]
phase = "*"
approvers = ["alice"]
auto = true

[[auto]]
name = "read-only git"
decide = "approve"
tool = "Bash"
argv = ["git", "status"]

[[auto]]
name = "no rm"
decide = "reject"
tool = "Bash*"
argv = ["rm"]
"""


def db_rows(url: str) -> dict[str, int]:
    """How many rows each table of the database holds."""
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT format('%I.%I', table_schema, table_name) FROM information_schema.tables"
                " WHERE table_type = 'BASE TABLE'"
                " AND table_schema NOT IN ('pg_catalog', 'information_schema')"
            )
        ]
        counted = {}
        for table in tables:
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            counted[table] = row[0] if row else -1
        return counted


def test_tool_calls_on_each_store_a_persons_reject_first(place: Place, tmp_path: Path) -> None:
    run = tool_history(place)
    policy = trust(tmp_path / "trust", TOOL_RULES)
    fs_before = tree_digest(Path(place.store)) if not place.store_args else {}
    db_before = db_rows(place.store) if place.store_args else {}
    root = () if place.store_args else (place.store,)
    found = replay((*place.store_args, "replay", *root), policy, "--json")
    assert [
        (r["id"], r["decided"], r["by"], r["would"], r["rule"], r["change"]) for r in found
    ] == [
        ("0003-tool-call", "rejected", "bob", "approve", "read-only git", "approves-a-reject"),
        ("0001-plan", "approved", "ana", "blocked", None, "blocks-an-approval"),
        ("0002-tool-call", "approved", "ana", "approve", "read-only git", "no-person"),
        ("0004-tool-call", "approved", "ana", "reject", "no rm", "other"),
        ("0007-tool-call", "approved", "ana", "reject", "no rm", "other"),
    ]
    assert {r["run"] for r in found} == {run}
    assert found[0]["tool"] == "Bash" and found[1]["tool"] is None
    # the hostile tool name: the exact glob Bash does not match it, Bash* rejects it
    assert found[-1]["tool"] == HOSTILE_TOOL
    shown = replay((*place.store_args, "replay", *root), policy)
    assert "\x1b" not in shown and "⟨ESC⟩[31m[bold]" in shown
    assert "a person rejected it; a rule would approve it" in shown
    assert shown.index("0003-tool-call") < shown.index("0001-plan") < shown.index("0002-tool-call")
    if place.store_args:
        assert db_rows(place.store) == db_before, "replay wrote to the database"
    else:
        assert tree_digest(Path(place.store)) == fs_before, "replay wrote under the runs"


def test_gate_replay_with_one_rule_names_what_it_would_approve(place: Place) -> None:
    """What the TUI asks before proposing a rule: that rule alone over the history."""
    tool_history(place)
    (rule,) = parse_auto(
        [{"name": "git status", "decide": "approve", "tool": "Bash", "argv": ["git", "status"]}]
    )
    with hg.Gate(place.store) as gate:
        found = gate.replay(rules=[rule])
    approved = found.approved_by("git status")
    assert [(j.ref.id, j.decided.value) for j in approved] == [
        ("0003-tool-call", "rejected"),
        ("0002-tool-call", "approved"),
    ]
    assert len(found.judged) == 7


def test_nothing_differs_when_no_rule_decides(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(SAMPLES / "clean-plan-to-verify", runs / "clean-plan-to-verify")
    policy = trust(tmp_path / "trust", '[[rule]]\nphase = "*"\napprovers = ["alice"]\n')
    assert replay(("replay", str(runs)), policy, "--json") == []
    shown = replay(("replay", str(runs)), policy)
    assert shown.strip() == "4 handoffs replayed: no outcome would differ"


ANYONE = '[[rule]]\nphase = "*"\napprovers = ["alice"]\nauto = true\n\n'


@pytest.mark.parametrize(
    "body",
    [
        "not = [toml",
        ANYONE + '[[auto]]\nname = "x"\ndecide = "maybe"\nphase = "plan"\n',
        ANYONE + '[[auto]]\nname = "x"\ndecide = "approve"\n',
        '[[rule]]\nphase = "*"\napprovers = ["alice"]\n\n'
        '[[auto]]\nname = "x"\ndecide = "approve"\nphase = "plan"\n',
    ],
)
def test_a_bad_policy_is_one_line_and_exit_2(tmp_path: Path, body: str) -> None:
    policy = trust(tmp_path / "trust", body)
    done = cli("replay", str(tmp_path), "--policy", str(policy))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "policy" in done.stderr


def test_without_a_policy_replay_says_what_it_needs(tmp_path: Path) -> None:
    done = cli("replay", str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--policy FILE" in done.stderr


def test_a_rules_approval_that_settles_nothing_alone_is_ask(place: Place, tmp_path: Path) -> None:
    """Under a quorum a rule's approval is one of several: people still decide, so a call
    a person approved does not differ; a rule under a [[rule]] without auto = true
    (given as ``rules``, since such a policy does not load) counts for nothing."""
    tool_history(place)
    folder = tmp_path / "quorum"
    folder.mkdir()
    (folder / "allowed_signers").write_text(
        f"alice {key_line(folder / 'alice')}\nbob {key_line(folder / 'bob')}\n"
    )
    quorum = folder / "policy.toml"
    quorum.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "*"\n'
        'approvers = ["alice", "bob"]\nrequired = 2\nauto = true\n\n'
        '[[auto]]\nname = "git"\ndecide = "approve"\ntool = "Bash"\nargv = ["git"]\n'
    )
    with hg.Gate(place.store) as gate:
        found = gate.replay(quorum)
        plain = gate.replay(
            trust(tmp_path / "plain", ANYONE.replace("auto = true\n", "")),
            rules=parse_auto([{"name": "git", "decide": "approve", "tool": "Bash"}]),
        )
    by_id = {j.ref.id: j for j in found.judged}
    assert by_id["0002-tool-call"].would.value == "ask" and by_id["0002-tool-call"].rule == "git"
    assert "one of the 2 approvals" in by_id["0002-tool-call"].why
    assert by_id["0002-tool-call"].change is None
    assert [j.ref.id for j in found.differences] == []
    assert all(j.would.value in ("ask", "blocked") for j in plain.judged)
    assert "does not say auto = true" in {j.ref.id: j for j in plain.judged}["0002-tool-call"].why


def test_a_rules_own_decision_is_named_by_stats_and_by_replay(place: Place, tmp_path: Path) -> None:
    """A call the policy's rule approved at submit is counted for the rule by ``stats``;
    a policy without that rule would leave it to a person, which ``replay`` lists."""
    policy = trust(tmp_path / "trust", TOOL_RULES)
    with hg.Gate(place.store, policy=policy) as gate:
        ref = gate.submit_tool_call(
            place.run, tool="Bash", args={"command": "git status"}, call_id="c1",
            json_schema=ARGS_SCHEMA,
        )  # fmt: skip
        assert gate.standing(place.run, ref).state is hg.HandoffState.APPROVED
    root = () if place.store_args else (place.store,)
    counted = cli(*place.store_args, "stats", *root, "--policy", str(policy), "--json")
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["by_decider"] == [
        {"kind": "rule", "name": "read-only git", "approved": 1, "rejected": 0, "total": 1}
    ]
    without = trust(tmp_path / "next", ANYONE)
    found = replay((*place.store_args, "replay", *root), without, "--json")
    assert [(r["id"], r["decided"], r["by"], r["would"], r["change"]) for r in found] == [
        ("0001-tool-call", "approved", "rule read-only git", "ask", "other")
    ]
    shown = replay((*place.store_args, "replay", *root), without)
    assert "a rule approved it; a person would decide it" in shown


def test_a_handoff_that_cannot_be_judged_is_blocked_never_approved(
    place: Place, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever raises while one handoff is judged (a parser, a signature check) makes
    that one ``blocked`` with the reason, and the others are still judged."""
    from handoff_gate.gates.rules.judge import rule_for as real
    from handoff_gate.gates.stats import replay as replaying

    tool_history(place)

    def broken(rules: Any, subject: Any) -> Any:
        if subject.args.get("command") == "git status --short":
            raise RecursionError("maximum recursion depth exceeded")
        return real(rules, subject)

    monkeypatch.setattr(replaying, "rule_for", broken)
    with hg.Gate(place.store) as gate:
        found = gate.replay(trust(tmp_path / "trust", TOOL_RULES))
    by_id = {j.ref.id: j for j in found.judged}
    assert by_id["0003-tool-call"].would.value == "blocked"
    assert "cannot be judged: maximum recursion depth" in by_id["0003-tool-call"].why
    assert by_id["0002-tool-call"].would.value == "approve" and len(found.judged) == 7
