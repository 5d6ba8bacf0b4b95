"""Each coding agent's own settings file, and the gate's hook entry in it.

``hook install`` writes it and ``hook doctor`` reads it back through this one module, so
what one writes is what the other checks. The matcher is derived from the shipped tool
contracts (every tool not ``reads_only``, and MCP tools), so a contract added later is
gated without a second list. Merging keeps every other key, hook and comment and
replaces the gate's own earlier entries, so installing twice writes the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Table

from handoff_gate.integrations.codex_trust import CODEX_TTY_FEATURE
from handoff_gate.integrations.coding_agents import HARNESSES, Harness
from handoff_gate.integrations.hook_command import read_command
from handoff_gate.schemas import HARNESS_TOOLS

#: MCP tools, named ``mcp__SERVER__TOOL`` by all three agents.
MCP_TOOLS = "mcp__.*"


class SettingsError(ValueError):
    """The settings file cannot be read as the agent's settings: nothing is written."""


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """Where and how one agent keeps its hooks."""

    agent: str
    #: The project-level file the agent reads, relative to the project.
    default_file: str
    #: The hook event asked before a tool runs.
    event: str
    #: The agent's hook timeout unit in seconds (Gemini counts milliseconds).
    unit: float
    #: The agent's hook timeout when the entry sets none, in seconds.
    default_agent_timeout: float
    toml: bool

    @property
    def harness(self) -> Harness:
        return HARNESSES[self.agent]


AGENTS: dict[str, AgentSettings] = {
    "claude-code": AgentSettings(
        "claude-code", ".claude/settings.json", "PreToolUse", 1.0, 600.0, False
    ),
    "codex": AgentSettings("codex", ".codex/config.toml", "PreToolUse", 1.0, 600.0, True),
    "gemini": AgentSettings("gemini", ".gemini/settings.json", "BeforeTool", 0.001, 60.0, False),
}


def gated_tools(agent: str) -> list[str]:
    """The shipped tools of ``agent`` that change things or reach out (not ``reads_only``)."""
    path = HARNESS_TOOLS / AGENTS[agent].harness.contracts_file
    tools: dict[str, Any] = json.loads(path.read_text("utf-8"))["tools"]
    return [name for name, spec in tools.items() if spec.get("reads_only") is not True]


def matcher(agent: str) -> str:
    """The matcher naming every gated tool exactly, and every MCP tool."""
    names = [re.escape(name) for name in gated_tools(agent)]
    return "^(" + "|".join([*names, MCP_TOOLS]) + ")$"


def hook_group(agent: str, command: str, agent_timeout: int) -> dict[str, Any]:
    """The group ``hook install`` writes under the agent's event."""
    spec = AGENTS[agent]
    handler = {"type": "command", "command": command, "timeout": round(agent_timeout / spec.unit)}
    return {"matcher": matcher(agent), "hooks": [handler]}


# -- reading -----------------------------------------------------------------


def load(spec: AgentSettings, path: Path) -> Any:
    """The settings document at ``path`` (empty when the file does not exist)."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return tomlkit.document() if spec.toml else {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from exc
    try:
        data: Any = tomlkit.parse(text) if spec.toml else json.loads(text)
    except (ValueError, tomlkit.exceptions.TOMLKitError) as exc:
        kind = "TOML" if spec.toml else "JSON"
        raise SettingsError(f"{path} is not {kind}: {exc}") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a settings object")
    return data


def _groups(spec: AgentSettings, data: Any, path: Path, create: bool) -> Any:
    """The list of hook groups under the agent's event (made when ``create``)."""
    hooks = data.get("hooks")
    if hooks is None:
        if not create:
            return []
        hooks = tomlkit.table(is_super_table=True) if spec.toml else {}
        data["hooks"] = hooks
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: 'hooks' is not a table of events")
    groups = hooks.get(spec.event)
    if groups is None:
        if not create:
            return []
        groups = tomlkit.aot() if spec.toml else []
        hooks[spec.event] = groups
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise SettingsError(f"{path}: 'hooks.{spec.event}' is not a list of hook groups")
    return groups


def _handlers(group: Any) -> list[Any]:
    handlers = group.get("hooks")
    if not isinstance(handlers, list):
        return []
    return [h for h in handlers if isinstance(h, dict)]


def is_gate_handler(agent: str, handler: Any) -> bool:
    """Whether ``handler`` runs ``handoff-gate hook AGENT``."""
    command = handler.get("command") if isinstance(handler, dict) else None
    if not isinstance(command, str):
        return False
    call = read_command(command)
    return call is not None and call.agent == agent


@dataclass(frozen=True, slots=True)
class GateHook:
    """One gate handler found in the settings, with its group's matcher."""

    matcher: str | None
    command: str
    timeout: Any


def gate_hooks(spec: AgentSettings, data: Any, path: Path) -> list[GateHook]:
    """Every handler under the agent's event that runs the gate as this agent's hook."""
    found = []
    for group in _groups(spec, data, path, create=False):
        raw = group.get("matcher")
        for handler in _handlers(group):
            if is_gate_handler(spec.agent, handler):
                found.append(GateHook(raw, handler["command"], handler.get("timeout")))
    return found


def plain(value: Any) -> Any:
    """A tomlkit value as plain Python (JSON values pass through)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


# -- writing -----------------------------------------------------------------


def _as_toml(group: dict[str, Any]) -> Table:
    table = tomlkit.table()
    table["matcher"] = group["matcher"]
    handlers = tomlkit.aot()
    for handler in group["hooks"]:
        item = tomlkit.table()
        for key, value in handler.items():
            item[key] = value
        handlers.append(item)
    table["hooks"] = handlers
    return table


def merge(spec: AgentSettings, data: Any, path: Path, group: dict[str, Any]) -> None:
    """Put ``group`` in ``data``: in place of the first group that held only the gate's
    handlers for this agent, else after the others; the gate's other handlers for this
    agent are removed (a group left empty with them). Everything else stays."""
    groups = _groups(spec, data, path, create=True)
    new: Any = _as_toml(group) if spec.toml else group
    place = None
    emptied = []
    for index, existing in enumerate(list(groups)):
        handlers = _handlers(existing)
        ours = [h for h in handlers if is_gate_handler(spec.agent, h)]
        if not ours:
            continue
        if place is None and len(ours) == len(existing.get("hooks") or []):
            place = index
            continue
        kept = [h for h in existing["hooks"] if not is_gate_handler(spec.agent, h)]
        if spec.toml:
            array = tomlkit.aot()
            for handler in kept:
                array.append(handler)
            existing["hooks"] = array
        else:
            existing["hooks"] = kept
        if not kept:
            emptied.append(existing)
    if place is None:
        groups.append(new)
    elif plain(groups[place]) != group:  # one already as it would be written stays put
        groups[place] = new
    gone = [i for i, g in enumerate(groups) if any(g is e for e in emptied)]
    for index in reversed(gone):
        del groups[index]


def close_terminal_input(data: Any, path: Path) -> None:
    """Turn Codex's :data:`CODEX_TTY_FEATURE` off in ``data`` (Codex's TOML settings):
    with it on, an approved shell or REPL would run whatever the model types into it."""
    features = data.get("features")
    if features is None:
        features = tomlkit.table()
        data["features"] = features
    if not isinstance(features, dict):
        raise SettingsError(f"{path}: 'features' is not a table")
    if features.get(CODEX_TTY_FEATURE) is not False:
        features[CODEX_TTY_FEATURE] = False


def dumps(spec: AgentSettings, data: Any) -> str:
    if spec.toml:
        return tomlkit.dumps(data)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
