"""``handoff-gate policy PATH``: check a policy and print what it allows and its digest.

The digest pins the policy with its allowed_signers file (``wait --policy-sha256``).
Every line goes through ``flat``: whoever wrote the files may have put terminal controls
in them, and this is the command people run to look.
"""

from __future__ import annotations

import argparse

from handoff_gate.cli.errors import OK, flat
from handoff_gate.gates.gate import Gate


def run(gate: Gate, args: argparse.Namespace) -> int:
    loaded = gate.read_policy(args.path)
    print(f"policy {flat(str(loaded.path))}")
    print(f"allowed_signers {flat(str(loaded.signers_path))}")
    for rule in loaded.rules:
        producers = ", ".join(rule.producers) if rule.producers else "anyone"
        line = (
            f"phase {rule.phase}: {rule.required} of {', '.join(rule.approvers)} approve; "
            f"produced by {producers}"
        )
        print(flat(line + ("; rules may approve" if rule.auto else "")))
    for auto in loaded.auto:
        print(flat(auto.describe()))
    print(f"sha256 {loaded.digest}")
    return OK
