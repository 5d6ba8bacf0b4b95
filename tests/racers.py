"""The multiprocessing context the racing tests (and the crash test's killed deciders)
start their processes from: a fork server that has imported the package, the database
driver and those test modules once, so each racer is a fork of it rather than a fresh
interpreter.

A spawned racer imports handoff_gate, psycopg, pytest and its test module again before it
reaches the barrier: ~0.6 s of CPU each, and a worker of the suite starts dozens. A forked
racer is still its own process, with its own files, locks and connections (all made after
the fork), which is all a race needs. The server forks from its own single-threaded
process, never from pytest's, whose xdist threads make a plain fork unsafe.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
from multiprocessing.context import ForkServerContext

#: What racers import. A name this process cannot import is skipped by the server, so a
#: test folder's module listed here costs nothing where it is not on the path.
PRELOAD = [
    "pytest",
    "psycopg",
    "handoff_gate.gates.api",
    "handoff_gate.gates.gate",
    "handoff_gate.gates.store.filesystem",
    "handoff_gate.gates.store.postgres",
    "handoff_gate.gates.store.postgres_schema",
    "test_audit",
    "test_crash",
    "test_race",
    "test_store_behaviour",
    "test_pg_race",
]


def context() -> ForkServerContext:
    """The fork-server context with :data:`PRELOAD` set; the server starts on first use,
    once per process, and is stopped and reaped when this process exits."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    atexit.unregister(_stop)
    atexit.register(_stop)
    return ctx


def _stop() -> None:
    """End the server and reap it. Left alone it ends when this process does, but as an
    orphan nobody may reap (a container's first process often does not), and the CPU its
    racers used would be missing from this process's accounting. multiprocessing has no
    public stop; its own tests use ``_stop``, looked up here so a Python without it only
    skips the reaping."""
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    stop = getattr(server, "_stop", None)
    if callable(stop):
        stop()
