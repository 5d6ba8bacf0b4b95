"""The producer's signature covers the stored contract a handoff names, not only its id.

An agent on the run's account swaps the contract behind a signed handoff for a laxer
one under the same id (re-claiming the id and rewriting the envelope's
``schema_sha256``): the contract then resolves, but the producer's signature no longer
verifies, so the handoff is blocked under a policy that names its producers."""

from __future__ import annotations

import json
from pathlib import Path

from trust_helpers import Keys

from handoff_gate.gates.contracts.json_schema import schema_sha256
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.submit.stored_contracts import document_bytes
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.findings import Code

STRICT = {
    "type": "object",
    "properties": {"goal": {"type": "string", "minLength": 5}},
    "required": ["goal"],
}
LAX = {"type": "object", "properties": {"goal": {"type": "string"}}}


def test_swapping_a_signed_handoffs_stored_contract_breaks_its_signature(
    tmp_path: Path, keys: Keys
) -> None:
    (tmp_path / "allowed_signers").write_text(
        f"planner {keys.public(keys.alice)}\nbob {keys.public(keys.bob)}\n"
    )
    (tmp_path / "policy.toml").write_text(
        'allowed_signers = "allowed_signers"\n[[rule]]\nphase = "plan"\n'
        'approvers = ["bob"]\nproducers = ["planner"]\n'
    )
    policy = Policy.load(tmp_path / "policy.toml")
    store = FilesystemStore(tmp_path)
    producer = Gate(store, contracts={}, policy=policy, key=SigningKey(keys.alice))
    ref = producer.submit("run", b'{"goal": "ok"}', phase="plan", schema_id="plan/v1",
                          json_schema=STRICT)  # fmt: skip
    reviewer = Gate(store, contracts={}, policy=policy)
    honest = reviewer.inspect("run", ref)
    assert [f.code for f in honest.findings] == [Code.INVALID_FIELD]  # "ok" is too short
    lax = schema_sha256(LAX)
    run = tmp_path / "run"
    (run / "contracts" / f"{lax}.json").write_bytes(document_bytes(LAX))
    claim = run / "contracts" / "ids" / "plan@v1.json"
    record = json.loads(claim.read_text())
    claim.unlink()
    claim.write_text(json.dumps({**record, "sha256": lax}))
    handoff = run / "handoffs" / f"{ref.id}.json"
    envelope = json.loads(handoff.read_text())
    handoff.unlink()
    handoff.write_text(json.dumps({**envelope, "schema_sha256": lax}, indent=2))
    swapped = reviewer.inspect("run", ref.id)
    assert Code.INVALID_FIELD not in {f.code for f in swapped.findings}  # the lax one applied
    assert Code.UNKNOWN_PRODUCER in {f.code for f in swapped.findings}
    assert not swapped.approvable
