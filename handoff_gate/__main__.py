"""``python -m handoff_gate``: the same as the ``handoff-gate`` command."""

import sys

from handoff_gate.cli import main

sys.exit(main())
