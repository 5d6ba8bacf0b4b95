"""The environment variables a ``Gate`` and the CLI read, named once.

Each gives the default of one setting the CLI also takes as an option: a ``Gate`` reads
them when it is made (``gates.gate``), the CLI when it parses a command.
"""

from __future__ import annotations

#: Where runs live: a folder of runs or a ``postgresql://`` URL (``--store``).
STORE_ENV = "HANDOFF_GATE_STORE"
#: Extra contracts: ``.py`` files or modules, joined with ``os.pathsep`` (``--schemas``).
SCHEMAS_ENV = "HANDOFF_GATE_SCHEMAS"
#: The policy file (``--policy``).
POLICY_ENV = "HANDOFF_GATE_POLICY"
#: The OpenSSH ed25519 private key that signs (``--key``).
KEY_ENV = "HANDOFF_GATE_KEY"
