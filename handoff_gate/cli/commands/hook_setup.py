"""``handoff-gate hook install|doctor AGENT``: write the agent's hook, and check it.

``install`` merges the hook in the form that fails closed at the process boundary
(``integrations.hook_command``), records the trust Codex requires, and ends by running
``doctor``, whose exit code it returns.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from handoff_gate.cli.errors import FAIL, USAGE, UsageError, flat
from handoff_gate.gates.gate import Gate
from handoff_gate.integrations import codex_trust, hook_doctor
from handoff_gate.integrations.agent_settings import (
    AGENTS,
    AgentSettings,
    SettingsError,
    close_terminal_input,
    dumps,
    gate_hooks,
    hook_group,
    load,
    merge,
)
from handoff_gate.integrations.hook_command import GATE_NAME, agent_timeout, hook_command


def _gate() -> Path:
    """The ``handoff-gate`` executable this process runs as, by absolute path: the
    script named in ``argv[0]``, else the one beside this interpreter (``python -m``)."""
    named = Path(sys.argv[0])
    if named.name == GATE_NAME and named.is_file():
        return named.resolve()
    beside = Path(sys.executable).absolute().parent / GATE_NAME
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    raise UsageError(
        f"cannot tell where the {GATE_NAME} executable is (run as {sys.argv[0]!r}); "
        f"run hook install through the {GATE_NAME} command itself"
    )


def _settings_path(spec: AgentSettings, given: str | None) -> Path:
    return Path(given if given is not None else spec.default_file).resolve()


def _project(settings: Path) -> Path:
    """The folder the agent runs in for this file: the parent of ``.codex`` and the
    like, else the current directory (a user-level file applies everywhere)."""
    if settings.parent.name.startswith("."):
        return settings.parent.parent
    return Path.cwd()


def _new_file_mode() -> int:
    """What ``open`` would give a new file under this process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically, keeping its mode; False when it already
    holds exactly that (a second install changes nothing, not even the time)."""
    try:
        if path.read_text("utf-8") == text:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else _new_file_mode()
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        Path(temp).chmod(mode)  # mkstemp's 0600 would hide a project's settings
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink()
        raise
    return True


def _trust_codex(spec: AgentSettings, settings: Path) -> None:
    """Have Codex trust the gate hooks in ``settings``, or say what the user must do."""
    codex = codex_trust.find_codex()
    project = _project(settings)
    if codex is None:
        print(
            f"codex is not on PATH: Codex runs this hook only once trusted; run codex in "
            f"{flat(str(project))}, type /hooks and trust the handoff-gate hook"
        )
        return
    commands = {hook.command for hook in gate_hooks(spec, load(spec, settings), settings)}
    source = str(settings.resolve())
    try:
        loaded = codex_trust.loaded_hooks(codex, project).hooks
        ours = [h for h in loaded if h.command in commands and h.source_path == source]
        untrusted = [h for h in ours if h.trust not in codex_trust.RUNS]
        if untrusted:
            codex_trust.trust(codex, project, untrusted)
            print(f"Codex now trusts the hook ({', '.join(h.key for h in untrusted)})")
    except codex_trust.CodexError as exc:
        print(f"could not have Codex trust the hook: {flat(str(exc))}")


def _doctor(spec: AgentSettings, settings: Path) -> int:
    try:
        found = hook_doctor.problems(spec, settings, _project(settings))
    except SettingsError as exc:
        found = [str(exc)]
    for line in found:
        print(flat(line))
    if found:
        return FAIL
    print(f"ok: {flat(str(settings))}: the {spec.agent} hook will run and block")
    return 0


def _install(args: argparse.Namespace, spec: AgentSettings) -> int:
    settings = _settings_path(spec, args.settings)
    deadline = args.timeout if args.timeout is not None else spec.harness.default_timeout
    run = args.run_dir if args.store else str(Path(args.run_dir).resolve())
    command = hook_command(_gate(), spec.agent, run, deadline, args.store)
    try:
        data = load(spec, settings)
        merge(spec, data, settings, hook_group(spec.agent, command, agent_timeout(deadline)))
        if spec.toml:
            close_terminal_input(data, settings)
        changed = _write(settings, dumps(spec, data))
    except SettingsError as exc:
        raise UsageError(f"{exc}; nothing was written") from exc
    except OSError as exc:
        raise UsageError(f"cannot write {settings}: {exc}") from exc
    print(f"{'wrote' if changed else 'unchanged:'} {flat(str(settings))}")
    if spec.toml:
        _trust_codex(spec, settings)
    return _doctor(spec, settings)


def run(gate: Gate, args: argparse.Namespace) -> int:
    """Install or check an agent's settings: files of the agent's, no run, so the Gate
    (which opens nothing until asked) is not asked."""
    spec = AGENTS[args.agent]
    if args.hook_action == "install":
        return _install(args, spec)
    if args.hook_action == "doctor":
        return _doctor(spec, _settings_path(spec, args.settings))
    return USAGE
