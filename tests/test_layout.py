"""The layout rule of docs/architecture.md: one real path per module, under handoff_gate/.

Tools that do not follow links (``grep -r``, coverage's source paths, an IDE's index)
must find every module once, at the path its ``handoff_gate.…`` import names.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path

import handoff_gate

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "handoff_gate"
#: The checkout's folders that are not the project's modules.
SKIP = {"tests", "bench", "examples", "sample_runs", "node_modules", "build", "dist"}


def test_nothing_under_the_package_is_a_link() -> None:
    links = [
        os.path.join(folder, name)
        for folder, dirs, files in os.walk(PACKAGE)
        for name in dirs + files
        if Path(folder, name).is_symlink()
    ]
    assert links == []


def test_the_design_folders_at_the_top_are_links_into_the_package() -> None:
    for name in ("gates", "schemas", "tui"):
        top = ROOT / name
        assert top.is_symlink(), name
        assert top.resolve() == PACKAGE / name


def test_every_import_resolves_to_its_one_real_file() -> None:
    walked = pkgutil.walk_packages(handoff_gate.__path__, "handoff_gate.")
    names = [m.name for m in walked if not m.name.endswith("__main__")]
    assert len(names) > 150
    for name in names:
        module = importlib.import_module(name)
        where = Path(module.__file__ or "")
        assert where.is_relative_to(PACKAGE), name
        assert where == where.resolve(), f"{name} is reached through a link: {where}"


def test_grep_without_following_links_sees_each_module_once() -> None:
    """Every ``.py`` file of the checkout that is not tests, tools or an environment, by
    its path inside the package: each is found once, under handoff_gate/."""
    seen: dict[str, list[Path]] = {}
    for folder, dirs, files in os.walk(ROOT):  # does not descend into linked folders
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIP]
        for name in files:
            path = Path(folder, name)
            if name.endswith(".py") and not path.is_symlink():
                inside = path.relative_to(ROOT).parts
                key = "/".join(inside[1:] if inside[0] == "handoff_gate" else inside)
                seen.setdefault(key, []).append(path)
    twice = {key: paths for key, paths in seen.items() if len(paths) > 1}
    assert twice == {}
    assert seen["gates/gate.py"] == [PACKAGE / "gates" / "gate.py"]
    assert seen["tui/review_app.py"] == [PACKAGE / "tui" / "review_app.py"]
