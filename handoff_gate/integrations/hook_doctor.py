"""Whether a coding agent's configured gate hook will run and block: ``hook doctor``.

Each way a hook was seen to let a tool run unapproved with the real agents is one
check (issue 40). What cannot be checked is a problem too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from handoff_gate.integrations import codex_trust
from handoff_gate.integrations.agent_settings import (
    AgentSettings,
    GateHook,
    gate_hooks,
    gated_tools,
    load,
    plain,
)
from handoff_gate.integrations.codex_trust import CODEX_TTY_FEATURE
from handoff_gate.integrations.hook_command import GATE_NAME, MIN_MARGIN, GateCall, read_command

#: How long ``GATE --version`` may take before the gate counts as not running.
VERSION_TIMEOUT = 30.0


def _gate_problems(call: GateCall) -> list[str]:
    gate = Path(call.gate)
    if not gate.is_absolute():
        return [
            f"the gate is named bare ({call.gate!r}): whether it is found depends on the "
            "agent's PATH, and Claude Code and Codex run every tool when it is not; "
            "name it by absolute path"
        ]
    if not (gate.is_file() and os.access(gate, os.X_OK)):
        return [f"the gate is not found at {call.gate} (or is not executable)"]
    try:  # found is not enough: a venv whose interpreter is gone fails at exec
        done = subprocess.run(
            [call.gate, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [f"the gate at {call.gate} does not run: {exc}"]
    if done.returncode != 0 or not done.stdout.startswith(GATE_NAME):
        return [f"the gate at {call.gate} does not run as handoff-gate (exit {done.returncode})"]
    return []


def _wrapper_problems(call: GateCall) -> list[str]:
    if call.wrapped:
        return []
    return [
        "the hook command has no fail-closed wrapper: a gate killed, crashed or missing "
        "exits other than 2 and the agent runs the tool; end it with '|| exit 2' as "
        "hook install writes it"
    ]


def _number(value: Any) -> float | None:
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _timeout_problems(spec: AgentSettings, hook: GateHook, call: GateCall) -> list[str]:
    given = call.option("--timeout")
    try:
        deadline = float(given) if given is not None else spec.harness.default_timeout
    except ValueError:
        return [f"the gate's --timeout is not a number: {given!r}"]
    if hook.timeout is None:
        agent = spec.default_agent_timeout
    else:
        number = _number(hook.timeout)
        if number is None:
            return [f"the agent's hook timeout is not a number: {plain(hook.timeout)!r}"]
        agent = number * spec.unit
    if agent < deadline + MIN_MARGIN:
        return [
            f"the agent's hook timeout ({agent:g} s) is not above the gate's deadline "
            f"({deadline:g} s) by {MIN_MARGIN:g} s: the agent kills the hook first and "
            "runs the tool"
        ]
    return []


def _run_problems(call: GateCall) -> list[str]:
    run = call.run
    if run is None:
        return ["the hook command names no run"]
    if call.store is not None:
        return []  # a database run: the store's own grants decide, checked on use
    if not Path(run).is_absolute():
        return [
            f"the run {run!r} is a relative path: it is read from the agent's working "
            "directory, which can be any folder; name it by absolute path"
        ]
    path = probe = Path(run)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        return [f"the run {path} is not writable here (at {probe})"]
    return []


def _covers(patterns: list[str | None], tool: str) -> bool:
    for pattern in patterns:
        if pattern in (None, "", "*"):
            return True
        try:  # whole names: a pattern the agent would read more loosely still covers
            if re.fullmatch(pattern, tool):
                return True
        except re.error:
            continue
    return False


def _matcher_problems(spec: AgentSettings, hooks: list[GateHook]) -> list[str]:
    patterns: list[str | None] = []
    for hook in hooks:
        raw = plain(hook.matcher)
        patterns.append(raw if isinstance(raw, str) or raw is None else "")
    missed = [tool for tool in gated_tools(spec.agent) if not _covers(patterns, tool)]
    if not missed:
        return []
    return [f"the matcher misses shipped tools that change things: {', '.join(missed)}"]


def _codex_problems(settings: Path, hooks: list[GateHook], cwd: Path) -> list[str]:
    codex = codex_trust.find_codex()
    if codex is None:
        return [
            "cannot check that Codex trusts the hook: codex is not on PATH (Codex runs an "
            "untrusted hook never; trust it in codex's /hooks screen)"
        ]
    try:
        view = codex_trust.loaded_hooks(codex, cwd)
    except codex_trust.CodexError as exc:
        return [f"cannot check that Codex trusts the hook: {exc}"]
    if not view.hooks_on:
        return ["Codex has its hooks turned off ([features] hooks = false): it runs none"]
    loaded, warnings = view.hooks, view.warnings
    source = str(settings.resolve())
    problems = []
    if view.terminal_input:
        problems.append(
            "Codex lets a command it ran take input typed later (write_stdin), which no hook "
            f"reviews: set [features] {CODEX_TTY_FEATURE} = false (hook install does)"
        )
    for hook in hooks:
        same = [h for h in loaded if h.command == hook.command and h.source_path == source]
        if not same:
            untrusted_project = any("trusted" in w and "project" in w.lower() for w in warnings)
            why = (
                f"Codex ignores {settings} in a project it does not trust; trust {cwd} "
                '(open codex there once, or add [projects."<its path>"] trust_level = '
                '"trusted" to ~/.codex/config.toml), then run hook install again'
                if untrusted_project
                else f"Codex does not load {settings} from {cwd}"
            )
            problems.append(f"Codex does not run this hook: {why}")
        for found in same:
            if not found.enabled:
                problems.append(f"Codex has the hook {found.key} disabled")
            elif found.trust not in codex_trust.RUNS:
                problems.append(
                    f"Codex does not trust the hook ({found.trust}): it skips it silently; "
                    "run hook install again or trust it in codex's /hooks screen"
                )
    return problems


#: Where Gemini CLI reads its trusted folders, unless this variable names the file.
GEMINI_TRUST_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
_TRUSTING = {"TRUST_FOLDER", "TRUST_PARENT"}


def _json_object(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _gemini_folder_trusted(project: Path, home: Path) -> bool:
    """Whether Gemini CLI loads ``project``'s own settings (its hooks included): folder
    trust is off in the user's settings, or the most specific rule covering it trusts it
    (a distrust rule as specific wins: a folder is trusted only explicitly)."""
    user = _json_object(home / ".gemini" / "settings.json") or {}
    trust = (user.get("security") or {}) if isinstance(user.get("security"), dict) else {}
    folder_trust = trust.get("folderTrust")
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return True
    rules_file = Path(os.environ.get(GEMINI_TRUST_ENV) or home / ".gemini" / "trustedFolders.json")
    rules = _json_object(rules_file) or {}
    best: tuple[int, bool] | None = None
    for key, level in rules.items():
        root = Path(key).parent if level == "TRUST_PARENT" else Path(key)
        if not root.is_absolute() or not _within(project, root):
            continue
        depth, trusted = len(root.parts), level in _TRUSTING
        if best is None or depth > best[0] or (depth == best[0] and not trusted):
            best = (depth, trusted)
    return best is not None and best[1]


def _claude_hooks_disabled(settings: Path, project: Path, home: Path) -> list[Path]:
    """The Claude Code settings files in play that set ``disableAllHooks``."""
    files = [
        settings,
        project / ".claude" / "settings.local.json",
        home / ".claude" / "settings.json",
    ]
    found = []
    for path in dict.fromkeys(files):
        data = _json_object(path)
        if data is not None and data.get("disableAllHooks") is True:
            found.append(path)
    return found


def _skipped_problems(spec: AgentSettings, settings: Path, project: Path) -> list[str]:
    """Claude Code with every hook turned off; Gemini in a folder it does not trust."""
    home = Path.home()
    if spec.agent == "claude-code":
        return [
            f"{path} sets disableAllHooks: Claude Code runs no hook at all"
            for path in _claude_hooks_disabled(settings, project, home)
        ]
    own = settings.parent.name == ".gemini" and settings.parent.parent != home
    if spec.agent == "gemini" and own and not _gemini_folder_trusted(project, home):
        return [
            f"Gemini CLI ignores {settings} (its hooks included) in a folder it does not "
            f"trust: trust {project} (its /permissions command, or TRUST_FOLDER in "
            "~/.gemini/trustedFolders.json)"
        ]
    return []


def problems(spec: AgentSettings, settings: Path, cwd: Path) -> list[str]:
    """One line per reason the agent's configured gate hook may not run and block."""
    data = load(spec, settings)
    if not settings.exists():
        return [f"{settings} does not exist: no hook is configured"]
    hooks = gate_hooks(spec, data, settings)
    if not hooks:
        return [f"{settings} has no handoff-gate hook {spec.agent} under {spec.event}"]
    found: list[str] = []
    for hook in hooks:
        call = read_command(hook.command)
        assert call is not None  # gate_hooks keeps only commands read as gate calls
        found += _gate_problems(call) + _wrapper_problems(call)
        found += _timeout_problems(spec, hook, call) + _run_problems(call)
    found += _matcher_problems(spec, hooks)
    found += _skipped_problems(spec, settings, cwd)
    if spec.toml:
        found += _codex_problems(settings, hooks, cwd)
    return list(dict.fromkeys(found))
