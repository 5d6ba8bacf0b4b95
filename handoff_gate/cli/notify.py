"""``wait --notify CMD``: tell someone that a pipeline is now blocked on a handoff.

CMD runs once, through ``/bin/sh -c``, in the background: it learns which handoff from
its environment (``HANDOFF_GATE_RUN``, ``_ID``, ``_PHASE``, ``_VERDICT``), never from
payload text in its arguments. Its output goes to stderr (stdout carries the approved
payload), and its failure is reported there; it never decides or ends the wait.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from handoff_gate.cli.errors import one_line

SHELL = "/bin/sh"


def notify(command: str, run_label: str, handoff_id: str, phase: str, verdict: str) -> None:
    """Run ``command`` once in a daemon thread that reports its failure. Its environment
    says which handoff, all of it bookkeeping (no payload text): the run as its store
    names it (``RunStore.run_label``: a folder's absolute path, a run id)."""
    env = {
        "HANDOFF_GATE_RUN": run_label,
        "HANDOFF_GATE_ID": handoff_id,
        "HANDOFF_GATE_PHASE": phase,
        "HANDOFF_GATE_VERDICT": verdict,
    }
    threading.Thread(target=_run, args=(command, env), name="notify", daemon=True).start()


def _run(command: str, env: dict[str, str]) -> None:
    try:
        code = subprocess.run(
            [SHELL, "-c", command],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr.fileno(),
            check=False,
        ).returncode
    except OSError as exc:
        print(f"handoff-gate wait: --notify could not run: {one_line(exc)}", file=sys.stderr)
        return
    if code != 0:
        print(
            f"handoff-gate wait: --notify command exited {code}; still waiting",
            file=sys.stderr,
            flush=True,
        )
