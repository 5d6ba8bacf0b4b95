"""``python -m handoff_gate``: the same as the ``handoff-gate`` command."""

import sys

from handoff_gate.console import console_main

sys.exit(console_main())
