"""``handoff-gate watch`` paints before the core loads, and still checks its arguments first.

The command and the app import none of the contracts, validators, decision or policy
code (the app's core worker makes its ``ReviewCore`` once its first screen is up), yet a bad
``--schemas``, a ``--key`` without ``--policy`` or a missing root still stop it with a
one-line usage error before any screen opens.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from handoff_gate.gates.vocab.environment import SCHEMAS_ENV

BOUND = 60
#: Modules that must not load before the first paint (each pulls in much of the core).
#: The field view and the contract shapes it walks bring pydantic's model machinery
#: (``pydantic.main``), about 100 ms: the field tree gets its rows from the core instead.
CORE = (
    "pydantic.main",
    "handoff_gate.gates.contracts.shapes",
    "handoff_gate.gates.view.fields",
    "handoff_gate.schemas",
    "handoff_gate.gates.contracts.registry",
    "handoff_gate.gates.inspect.stages",
    "handoff_gate.gates.audit.decision_record",
    "handoff_gate.gates.decide.decisions",
    "handoff_gate.gates.standing.quorum",
    "handoff_gate.gates.standing.report_in_run",
    "handoff_gate.gates.trust.policy",
    "handoff_gate.tui.review_core",
    # --notify-url's announcer and Apprise load only when a URL is given.
    "handoff_gate.gates.notify.announcer",
    "apprise",
)


def _watch(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "handoff_gate.cli", "watch", *args],
        capture_output=True,
        text=True,
        timeout=BOUND,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def test_the_command_and_the_app_import_none_of_the_core() -> None:
    code = (
        "import sys\n"
        "import handoff_gate.cli.commands.watch, handoff_gate.tui.review_app\n"
        "print('\\n'.join(sys.modules))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=BOUND
    ).stdout.split()
    assert [name for name in CORE if name in loaded] == []


def test_bad_extra_contracts_are_a_usage_error_before_any_screen(tmp_path: Path) -> None:
    named = _watch(str(tmp_path), "--schemas", "no_such_module_here")
    assert named.returncode == 2
    assert named.stderr.startswith("handoff-gate watch: ")
    assert "no_such_module_here" in named.stderr
    from_env = _watch(str(tmp_path), env={SCHEMAS_ENV: "no_such_module_here"})
    assert from_env.returncode == 2
    assert "no_such_module_here" in from_env.stderr


def test_a_key_without_a_policy_is_a_usage_error(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text("not read: refused before\n")
    result = _watch(str(tmp_path), "--key", str(key))
    assert result.returncode == 2
    assert result.stderr.strip() == "handoff-gate watch: --key needs --policy"


def test_a_missing_root_is_refused(tmp_path: Path) -> None:
    result = _watch(str(tmp_path / "missing"))
    assert result.returncode == 2
    assert "not a directory" in result.stderr
