"""The checkout's own tools (``bench/``), for the tests that drive them.

The tests import the project as an installed user does (``handoff_gate``) and their
helpers from ``tests/``; the repository root is not on the import path, so nothing of the
checkout becomes importable by accident. ``bench`` is registered by its folder instead,
once, before any test module is collected (``conftest.pytest_configure``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def checkout_package(name: str) -> ModuleType:
    """The package ``ROOT/name`` as ``name``, its submodules found in that folder only."""
    if name in sys.modules:
        return sys.modules[name]
    folder = ROOT / name
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"no package at {folder}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
