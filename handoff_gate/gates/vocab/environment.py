"""handoff-gate's own environment variables, named here and read only by ``Environment.read``.

In the vocabulary, so every layer can ask without reaching up. Other programs'
variables (an agent's, ssh-agent's, the editor's) are read where they are used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

#: Where runs live: a folder of runs or a ``postgresql://`` URL (``--store``).
STORE_ENV = "HANDOFF_GATE_STORE"
#: Extra contracts: ``.py`` files or modules, joined with ``os.pathsep`` (``--schemas``).
SCHEMAS_ENV = "HANDOFF_GATE_SCHEMAS"
#: The policy file (``--policy``).
POLICY_ENV = "HANDOFF_GATE_POLICY"
#: The OpenSSH ed25519 private key that signs (``--key``).
KEY_ENV = "HANDOFF_GATE_KEY"
#: Set to ``1`` to see the traceback of an unexpected error instead of its one line.
TRACEBACK_ENV = "HANDOFF_GATE_TRACEBACK"
#: How long a store lock is waited for, in seconds (``gates.store.lock_bound``).
LOCK_TIMEOUT_ENV = "HANDOFF_GATE_LOCK_TIMEOUT"


class ConfigError(ValueError):
    """A setting cannot be used (a store URL, a contract module, a policy or its pin, a
    key): one line saying which and why, raised before anything past it was loaded. Here
    beside the settings so that a front end can catch it without loading the core."""


@dataclass(frozen=True, slots=True)
class Environment:
    """What the variables say; an unset or empty one is ``""`` (no store URL, no extra
    contracts) or ``None`` (no policy, no key)."""

    store: str = ""
    schemas: str = ""
    policy: str | None = None
    key: str | None = None
    traceback: bool = False
    lock_timeout: str = ""

    @classmethod
    def read(cls, env: Mapping[str, str] | None = None) -> Environment:
        """The variables of ``env`` (default: this process's environment)."""
        values = os.environ if env is None else env
        return cls(
            store=values.get(STORE_ENV, ""),
            schemas=values.get(SCHEMAS_ENV, ""),
            policy=values.get(POLICY_ENV) or None,
            key=values.get(KEY_ENV) or None,
            traceback=values.get(TRACEBACK_ENV) == "1",
            lock_timeout=values.get(LOCK_TIMEOUT_ENV, ""),
        )
