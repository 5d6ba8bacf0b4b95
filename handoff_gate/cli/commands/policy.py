"""``handoff-gate policy PATH``: check a policy and print what it allows and its digest.

The digest pins the policy file together with the allowed_signers file it names; a
pipeline passes it to ``wait --policy-sha256`` so that whoever can write next to the
policy cannot widen it. Every line goes through ``flat``: whoever wrote the files may
have put terminal controls in them, and this is the command people run to look. It
reads PATH through the Gate (``Gate.read_policy``) and asks nothing else of it.
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
