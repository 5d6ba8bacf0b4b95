"""``handoff-gate hook`` answering a call a policy rule decides: its whole process,
against starting its Python with ``-c pass`` (issue 43: at most 4x, median).

Each repetition runs, in turn, ``python -c pass`` and ``hook claude-code RUN --policy P``
with a fresh ``git status`` call on stdin (a new call id, so each is stored, decided by
the rule ``read-only git``, recorded and answered), both from the installed wheel
(``bench.install``: the editable checkout's import finder costs every process extra),
so drift on a shared machine hits both alike. The answer must be the harness's allow.

Beside it, without a target, ``hook.import_floor_vs_python``: a Python that only imports
the standard modules any Python answer of such a call needs (the event's JSON, the
policy's TOML, sha256, the stop signals, the log's lock, a rule's globs) and the shell
grammar's binding. No project code and no work: the part of the ratio no change to the
project can remove (docs/performance.md).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.install import installed_copy, installed_env
from bench.stats import summarize

MAX_RATIO = 4.0
BOUND_S = 60
#: The imports of the floor figure (see the module docstring).
FLOOR = "import json, tomllib, hashlib, signal, fcntl, fnmatch, tree_sitter"

POLICY = """allowed_signers = "allowed_signers"

[[rule]]
phase = "tool-call"
approvers = ["alice"]
auto = true

[[auto]]
name = "read-only git"
decide = "approve"
tool = "Bash"
argv = ["git", "status"]
"""


def _policy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / "alice"
    if not key.exists():
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(key)],
            check=True,
        )
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f'alice namespaces="handoff-gate" {public}\n')
    policy = folder / "policy.toml"
    policy.write_text(POLICY)
    return policy


def _event(call: str) -> str:
    return json.dumps(
        {
            "session_id": "bench", "transcript_path": "/dev/null", "cwd": "/",
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "git status --short"}, "tool_use_id": call,
        }
    )  # fmt: skip


def _timed(argv: list[str], env: dict[str, str], stdin: str | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=env, timeout=BOUND_S, check=False
    )
    elapsed = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{argv[1:3]} exited {done.returncode}: {done.stderr[-500:]}")
    return elapsed, done.stdout


def _installed(ctx: Context) -> Path:
    """The wheel ``startup`` installed earlier in this run (the same checkout), else one
    of its own: building a wheel is most of this benchmark's time."""
    shared = ctx.workdir.parent / "startup" / "wheel-venv" / "bin"  # bench.startup's folder
    if (shared / "handoff-gate").exists():
        return shared
    return installed_copy(ctx.workdir / "hook-rule-install")


def run(ctx: Context) -> list[Figure]:
    installed = _installed(ctx)
    gate, python = str(installed / "handoff-gate"), str(installed / "python")
    env = installed_env()
    policy = _policy(ctx.workdir / "hook-rule-trust")
    run_dir = ctx.workdir / "hook-rule-run"
    hook = [gate, "hook", "claude-code", str(run_dir), "--policy", str(policy)]
    series: dict[str, list[float]] = {"hook": [], "python": [], "floor": []}
    for rep in range(ctx.profile.startup_reps * 2 + 1):  # rep 0 warms the page cache
        base, _ = _timed([python, "-c", "pass"], env)
        floor, _ = _timed([python, "-c", FLOOR], env)
        took, out = _timed(hook, env, _event(f"toolu_rule_{rep}"))
        answer = json.loads(out)["hookSpecificOutput"]
        if answer["permissionDecision"] != "allow" or "rule read-only git" not in out:
            raise RuntimeError(f"the rule did not decide the call: {out[:300]}")
        if rep:
            series["python"].append(base)
            series["hook"].append(took)
            series["floor"].append(floor)
    return [
        Figure(
            name="hook.rule_decided_vs_python",
            unit="ms",
            value=summarize(series["hook"]),
            baseline_name="python -c pass",
            baseline=summarize(series["python"]),
            target=Target(stat="median", max_ratio=MAX_RATIO),
            note="hook claude-code, a call the rule read-only git approves: start -> allow",
        ),
        Figure(
            name="hook.import_floor_vs_python",
            unit="ms",
            value=summarize(series["floor"]),
            baseline_name="python -c pass",
            baseline=summarize(series["python"]),
            note=f"python -c '{FLOOR}'",
        ),
    ]
