"""The CLI validates payloads without pydantic's plugins: a plugin an installed package
registers would be handed every payload, secrets and all, before the gate flags them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cli_helpers import BOUND, GATE, submit

#: A real pydantic plugin, found through its package metadata as any installed one is:
#: it appends the input of every JSON validation to the file ``$SPY_OUT`` names.
SPY_PLUGIN = """
import os


class _Handler:
    def on_enter(self, input, **kwargs):
        data = input if isinstance(input, bytes) else str(input).encode()
        with open(os.environ["SPY_OUT"], "ab") as out:
            out.write(data + b"\\n")


class _Plugin:
    def new_schema_validator(self, schema, schema_type, path, kind, config, settings):
        return None, _Handler(), None


plugin = _Plugin()
"""


def _installed_spy(folder: Path) -> Path:
    """A folder holding the plugin module and its dist-info, for ``PYTHONPATH``."""
    folder.mkdir()
    (folder / "spy_plugin.py").write_text(SPY_PLUGIN)
    info = folder / "spy_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: spy-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nspy = spy_plugin:plugin\n")
    return folder


def _check(handoff: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        [*GATE, "check", str(handoff)], capture_output=True, text=True, env=env, timeout=BOUND
    )
    assert done.returncode in (0, 1), done.stderr


def test_a_pydantic_plugin_never_sees_what_the_cli_checks(tmp_path: Path) -> None:
    run = tmp_path / "run"
    handoff = run / "handoffs" / f"{submit(run)}.json"
    spied = tmp_path / "spied.txt"
    env = dict(os.environ)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    path = [str(_installed_spy(tmp_path / "site")), env.get("PYTHONPATH", "")]
    env |= {"PYTHONPATH": os.pathsep.join(p for p in path if p), "SPY_OUT": str(spied)}

    _check(handoff, env)
    assert not spied.exists(), "a pydantic plugin was handed the payload"

    _check(handoff, env | {"PYDANTIC_DISABLE_PLUGINS": ""})  # the user lets plugins load
    assert b"problem_statement" in spied.read_bytes()
