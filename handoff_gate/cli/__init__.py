"""The ``handoff-gate`` command; ``cli.main`` is its composition root.

``console_main`` here is the console script's entry: a coding agent's hook for a call a
policy rule approves is answered by ``integrations.hook_fast`` before ``cli.main`` (the
argument parser, the Gate, pydantic) is imported; everything else, and every call that
path does not answer, runs ``cli.main``. ``main`` (the function) loads on first use.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from handoff_gate.cli.main import main

__all__ = ["console_main", "main"]


def console_main() -> int:
    """The ``handoff-gate`` console script and ``python -m``: the hook's fast path when
    it answers, else ``cli.main.console_main``."""
    words = sys.argv[1:]
    if words[:1] == ["hook"]:
        from handoff_gate.integrations.hook_fast import answered

        code = answered(words)
        if code is not None:
            return code
    from handoff_gate.cli.main import console_main as full

    return full()


class _Package(ModuleType):
    """This package, whose ``main`` is always ``cli.main.main`` (the function), as when
    the package imported it eagerly: loading the submodule ``cli/main.py`` would otherwise
    rebind the name to the submodule, and ``from handoff_gate.cli import main`` with it."""

    @property
    def main(self) -> object:
        from handoff_gate.cli.main import main

        return main

    @main.setter
    def main(self, value: object) -> None:
        """The import system names the loaded submodule here: the function stays."""


sys.modules[__name__].__class__ = _Package
