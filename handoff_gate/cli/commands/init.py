"""``handoff-gate init RUN --pipeline USER --reviewers GROUP``: a run whose vetoes last.

Run as root, it gives the decisions folder to root and the reviewers' group, so the
pipeline's account may submit, wait and log but never create, replace or delete a
decision record (``gates.store.fs_layout``). On an older run it adds what is missing.
"""

from __future__ import annotations

import argparse
import grp
import pwd
from collections.abc import Callable

from handoff_gate.cli.errors import OK, UsageError, flat, os_problem
from handoff_gate.gates.gate import Gate


def _account_id(text: str, by_name: Callable[[str], int], unknown: str) -> int:
    """A numeric id as given, else the id of the user or group so named."""
    if text.isdigit():
        return int(text)
    try:
        return by_name(text)
    except KeyError:
        raise UsageError(f"{unknown}: {flat(text)}") from None


def run(gate: Gate, args: argparse.Namespace) -> int:
    pipeline = _account_id(
        args.pipeline, lambda name: pwd.getpwnam(name).pw_uid, "--pipeline: no such user"
    )
    reviewers = _account_id(
        args.reviewers, lambda name: grp.getgrnam(name).gr_gid, "--reviewers: no such group"
    )
    if pipeline == 0:
        raise UsageError("--pipeline must not be root: root can remove any decision")
    try:  # OS accounts and folder owners: run folders only (a database store: exit 2)
        made, label = gate.separate(args.run_dir, pipeline, reviewers)
    except FileExistsError as exc:
        raise UsageError(flat(str(exc))) from None
    except PermissionError as exc:
        raise os_problem("set the owners of", args.run_dir, exc) from None
    except OSError as exc:
        raise os_problem("make the run", args.run_dir, exc) from None
    what = "new run" if made else "run completed (what it lacked was added)"
    print(f"{what} {flat(label)}: decisions kept from uid {pipeline}")
    return OK
