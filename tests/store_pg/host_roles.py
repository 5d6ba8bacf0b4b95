"""The programs the "hosts" in the two-host tests run, each in its own process and folder.

They share nothing with each other or with the test but ``HANDOFF_GATE_STORE``:

    host_roles.py pipeline RUN            submit a handoff, then wait for its decision
    host_roles.py reviewer RUN HID ACTION [REASON]   decide as principal alice
    host_roles.py waiter RUN HID          wait for a decision on an existing handoff

A waiter prints ``listening`` once subscribed, then the decision record, and exits 0 for
approve, 1 for reject; store errors are one line on stderr and exit 2. The wait loop is
what ``handoff-gate wait`` will do on a PostgreSQL store: re-read, then block on
``wait_for_change``; a store that is down meanwhile is retried until the deadline.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

from handoff_gate.gates.run.submit import submit
from handoff_gate.gates.store.base import DecisionExists
from handoff_gate.gates.store.pg_connect import StoreUnavailable
from handoff_gate.gates.store.postgres import PostgresStore, StoreRefused
from handoff_gate.gates.store.select import store_for

DEADLINE = 60.0
PAYLOAD = b'{"goal": "ship it", "steps": []}\n'


def _store() -> PostgresStore:
    store = store_for()
    assert isinstance(store, PostgresStore)
    return store


def wait_for_decision(store: PostgresStore, run: str, handoff_id: str) -> int:
    deadline = time.monotonic() + DEADLINE
    announced = False
    while time.monotonic() < deadline:
        try:
            records = store.decision_records(run, handoff_id)
            if records:
                record = records[min(records, key=str)]
                print(record.decode(), flush=True)
                return 0 if json.loads(record)["action"] == "approve" else 1
            store.wait_for_change(run, deadline - time.monotonic())
        except StoreUnavailable:
            time.sleep(0.05)
            continue
        if not announced:
            print("listening", flush=True)
            announced = True
    print(f"timed out waiting for a decision on {handoff_id}", file=sys.stderr)
    return 2


def pipeline(run: str) -> int:
    store = _store()
    ref = submit(run, PAYLOAD, phase="plan", schema_id="plan/v1", store=store)
    print(f"submitted {ref.id}", flush=True)
    return wait_for_decision(store, run, ref.id)


def reviewer(run: str, handoff_id: str, action: str, reason: str = "") -> int:
    store = _store()
    data = store.handoff_bytes(run, handoff_id, 1_000_000)
    digest = hashlib.sha256(data).hexdigest()
    record = {"action": action, "handoff": handoff_id, "sha256": digest, "reason": reason}
    event = {"event": "decision_written", "handoff": handoff_id, "action": action}
    try:
        store.create_decision(run, handoff_id, "alice", json.dumps(record).encode(), event)
    except (StoreRefused, StoreUnavailable, DecisionExists) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str]) -> int:
    role, run, *rest = argv
    if role == "pipeline":
        return pipeline(run)
    if role == "reviewer":
        return reviewer(run, *rest)
    if role == "waiter":
        return wait_for_decision(_store(), run, rest[0])
    raise SystemExit(f"unknown role {role}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
