"""Shared by the trust tests: the key set, ssh-keygen as the reference implementation,
and decisions forged the way an agent holding a key would write them."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.audit.log import now_iso
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.store.log_chain import line_hash

PASSPHRASE = "correct horse"
STORE = FilesystemStore()


@dataclass(frozen=True)
class Keys:
    folder: Path
    alice: Path
    bob: Path
    mallory: Path
    locked: Path

    def public(self, key: Path) -> str:
        """The ``type base64`` fields of the key's .pub file, as ssh-keygen wrote it."""
        return " ".join(key.with_suffix(".pub").read_text().split()[:2])


def make_key(path: Path, passphrase: str = "", key_type: str = "ed25519") -> Path:
    extra = ["-b", "1024"] if key_type == "rsa" else []
    subprocess.run(
        ["ssh-keygen", "-q", "-t", key_type, *extra, "-N", passphrase, "-C", path.name, "-f", path],
        check=True,
    )
    return path


def ssh_keygen_verify(
    signers: Path,
    principal: str,
    message: bytes,
    signature: str,
    folder: Path,
    namespace: str = "handoff-gate",
) -> subprocess.CompletedProcess[bytes]:
    """``ssh-keygen -Y verify`` over the message, the reference our verifier must agree with."""
    sig = folder / "message.sig"
    sig.write_text(signature)
    command = ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace]
    return subprocess.run(
        [*command, "-s", str(sig)], input=message, capture_output=True, check=False
    )


def ssh_keygen_sign(
    key: Path, message: bytes, namespace: str = "handoff-gate", *options: str
) -> str:
    command = ["ssh-keygen", "-q", "-Y", "sign", "-n", namespace, "-f", str(key)]
    for option in options:
        command += ["-O", option]
    done = subprocess.run(command, input=message, capture_output=True, check=True)
    return done.stdout.decode()


def forge_decision(
    run: Path, hid: str, key: Path, principal: str, decided_at: str, reviewer: str | None = None
) -> None:
    """A signed approval dated ``decided_at`` (naming ``reviewer``, by default the
    principal), signed by ssh-keygen and filed and logged as decide would: what an
    agent holding ``key`` can write without the gate's own code."""
    report = inspect_in_run(run, hid, load_registry(""), store=STORE)
    log_head = line_hash(b"".join(STORE.log_chunks(str(run))).splitlines()[-1])
    unsigned = Decision(
        handoff=hid,
        run=run.name,
        action="approve",
        reviewer=reviewer or principal,
        decided_at=decided_at,
        sha256=report.sha256,
        verdict=report.verdict,
    )
    signature = ssh_keygen_sign(key, unsigned.statement(principal, log_head))
    # model_copy does not validate: the agent writes whatever it likes
    signed = unsigned.model_copy(
        update={"principal": principal, "log_head": log_head, "signature": signature}
    )
    event = {
        "event": "decision_written",
        "at": now_iso(),
        "handoff": hid,
        "action": "approve",
        "category": None,
        "reviewer": reviewer or principal,
        "principal": principal,
        "sha256": report.sha256,
        "verdict": report.verdict.value,
    }
    data = json.dumps(signed.model_dump(mode="json")).encode()
    STORE.create_decision(str(run), hid, principal, data, event)
