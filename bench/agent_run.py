"""One headless Claude Code run with one call approved at once, against the same run
without the hook (issue 40: at most 1.3× at the median).

The real Claude Code (``tests/coding_agents``' pinned install) runs ``claude -p`` against
the tests' fake Anthropic server, whose model asks for one ``Bash`` call creating a file.
Gated, the project's settings are what ``handoff-gate hook install`` writes, and a
reviewer in this process approves through the Python API the moment the hook's wait is
registered: what is timed is the hook's own cost to the agent, not a person's delay.
Plain, there is no hook and the call runs at once. Each sample is one whole run, from
starting the agent to its exit, with the file checked after; the two kinds alternate
which goes first, so drift on a shared machine hits both alike.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.stats import summarize
from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import Registry, load_registry

# The agent runner and fake model are the real-agent tests' own (tests/coding_agents),
# with the tests' helpers it imports (tests/).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "coding_agents"))

from agent_runs import ClaudeCode, Reviewer, Session, drive, install_hook, registered

TARGET = Target(stat="median", max_ratio=1.3)
#: One run of each kind per this many repetitions the profile asks of a latency figure
#: (60 in the full profile, 15 quick, 2 smoke): a whole agent run takes seconds.
RUN_SHARE = 5
#: How long the gate would wait: far above a run, so only the instant approval ends it.
GATE_WAIT = 60.0


def _approve_at_once(registry: Registry) -> Reviewer:
    def approve(session: Session, process: subprocess.Popen[bytes]) -> None:
        handoff_id, _ = registered(session.run, process, session.root / "agent.err", poll=0.001)
        decide(session.run, handoff_id, "approve", reviewer="bench", registry=registry)

    return approve


def _one(ctx: Context, name: str, reviewer: Reviewer | None) -> float:
    """ms of one whole run; raises unless the call ran."""
    session = Session(ctx.workdir / name, ClaudeCode())
    session.project.mkdir(parents=True)
    session.agent.prepare_home(session)
    if reviewer is not None:
        install_hook(session, GATE_WAIT)
    call = session.agent.shell(session.touch())
    started = time.perf_counter()
    outcome = drive(session, call, reviewer)
    elapsed = (time.perf_counter() - started) * 1000
    if not session.marker().exists():
        raise RuntimeError(f"the approved call did not run ({name}): {outcome.stderr[-2000:]}")
    return elapsed


def run(ctx: Context) -> list[Figure]:
    runs = max(1, ctx.profile.latency_reps // RUN_SHARE)
    reviewer = _approve_at_once(load_registry())
    gated: list[float] = []
    plain: list[float] = []
    if ctx.profile.name != "smoke":  # which only proves the harness runs
        _one(ctx, "warm-up", reviewer)  # the first start of a 240 MB binary pays its page-in
    for rep in range(runs):
        for hooked in (True, False) if rep % 2 else (False, True):
            sample = _one(ctx, f"{rep}-{hooked}", reviewer if hooked else None)
            (gated if hooked else plain).append(sample)
    return [
        Figure(
            name="agents.claude_code_approved_run",
            unit="ms",
            value=summarize(gated),
            baseline_name="the same run without the hook",
            baseline=summarize(plain),
            target=TARGET,
            note="claude -p, one Bash call: gated by hook install's hook, approved at once "
            "through the API, vs no hook",
        )
    ]
