"""The core install runs a pipeline; each extra's feature, missing, is one line naming it.

The core process is simulated: a fresh interpreter whose import system refuses every
module an extra installs (``gates.vocab.extras.EXTRAS``) exactly as a missing package
does, before anything is imported. In it ``submit``, ``check``, ``decide`` and ``wait``
must work, and ``serve``, ``store``, a ``postgresql://`` store and ``--notify-url`` must
each exit 2 with the one line that names their extra.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import requires
from pathlib import Path

import pytest
from cli_helpers import python_stdout

from handoff_gate.gates.vocab.extras import EXTRAS, MissingExtra, needs_extra
from handoff_gate.schemas import example_path

#: A fresh process with no extra installed, running the CLI as its console script does:
#: prints one ``[code, stdout, stderr]`` per command line in argv (JSON lists).
CORE_ONLY = """
import importlib.abc, io, json, sys
BLOCKED = {blocked!r}

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from handoff_gate.cli.main import console_main

results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.BytesIO(), io.BytesIO()
    real = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    sys.argv = ["handoff-gate", *argv]
    try:
        code = console_main()
    finally:
        sys.stdout.detach(), sys.stderr.detach()
        sys.stdout, sys.stderr = real
    results.append([code, out.getvalue().decode(), err.getvalue().decode()])
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
print(json.dumps({{"results": results, "loaded": loaded}}))
"""


def _core_only(*commands: list[str]) -> tuple[list[tuple[int, str, str]], list[str]]:
    blocked = sorted(set().union(*EXTRAS.values()))
    script = CORE_ONLY.format(blocked=blocked)
    found = json.loads(python_stdout(script + "\n", json.dumps(list(commands))))
    return [tuple(r) for r in found["results"]], found["loaded"]


def _missing(extra: str, command: str) -> str:
    return f"handoff-gate {command}: needs the {extra} extra: pip install 'handoff-gate[{extra}]'\n"


def test_the_core_runs_a_pipeline_and_each_extra_is_named_when_missing(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    plan = str(example_path("plan/v1"))
    submitted = ["submit", run, "--phase", "plan", "--schema", "plan/v1", plan]
    handoff = str(tmp_path / "run" / "handoffs" / "0001-plan.json")
    results, loaded = _core_only(
        submitted,
        ["check", handoff],
        ["decide", run, "0001-plan", "approve", "--reviewer", "ana"],
        ["wait", run, "0001-plan", "--timeout", "0"],
        ["serve", run],
        ["--store", "postgresql://nobody@127.0.0.1:1/none", "list"],
        ["--store", "postgresql://nobody@127.0.0.1:1/none", "store", "init"],
        ["watch", run, "--notify-url", "json://127.0.0.1:1/"],
    )
    (sub, check, decide, wait, serve, pg, store, notify) = results
    assert sub[:2] == (0, "0001-plan\n"), sub
    assert check[0] == 0 and ": APPROVABLE " in check[1], check
    assert decide[0] == 0, decide
    assert wait[0] == 0 and json.loads(wait[1]) == json.loads(example_path("plan/v1").read_bytes())
    assert serve == (2, "", _missing("serve", "serve"))
    assert pg == (2, "", _missing("postgres", "list"))
    assert store == (2, "", _missing("postgres", "store"))
    assert notify == (2, "", _missing("notify", "watch"))
    assert loaded == [], "an extra's module was loaded in the core process"


def test_the_core_requirements_name_no_extras_package() -> None:
    """What ``pip install handoff-gate`` pulls in: the installed metadata's unconditional
    requirements, none of them a package only an extra needs."""
    extra_only = {"psycopg", "textual-serve", "aiohttp", "aiohttp-jinja2", "apprise"}
    core: set[str] = set()
    by_extra: dict[str, set[str]] = {}
    for line in requires("handoff-gate") or []:
        name = re.match(r"[A-Za-z0-9_.-]+", line)
        assert name is not None
        marker = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        if marker:
            by_extra.setdefault(marker.group(1), set()).add(name.group(0).lower())
        else:
            core.add(name.group(0).lower())
    assert not core & extra_only, core & extra_only
    assert by_extra["postgres"] == {"psycopg"}
    assert by_extra["serve"] == {"textual-serve", "aiohttp", "aiohttp-jinja2"}
    assert by_extra["notify"] == {"apprise"}


def test_only_a_missing_package_of_the_extra_is_blamed_on_it() -> None:
    serve = r"pip install 'handoff-gate\[serve\]'"
    with pytest.raises(MissingExtra, match=serve), needs_extra("serve"):
        raise ModuleNotFoundError("No module named 'aiohttp.web'", name="aiohttp.web")
    with pytest.raises(ModuleNotFoundError) as other, needs_extra("serve"):
        raise ModuleNotFoundError("No module named 'yarl'", name="yarl")
    assert not isinstance(other.value, MissingExtra)
