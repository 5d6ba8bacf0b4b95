"""Codex's trust in a hook, asked of and recorded through Codex itself.

Codex (0.171) runs a non-managed command hook only once the user trusted it in its
``/hooks`` screen, and ``codex exec`` skips an untrusted hook without a word. The trust
is a hash of the hook's configuration kept in the user's ``config.toml``
(``hooks.state."<key>".trusted_hash``); changing the command un-trusts it. The hash is
Codex's own to compute, so it is never recomputed here: ``codex app-server`` lists the
hooks it loads with their current hash and trust (``hooks/list``), and records a
trust the way its screen does (``config/batchWrite``). Without ``codex`` nothing can be
verified, and that is said, never assumed.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Codex's feature that keeps a command's terminal open for input typed later
#: (``write_stdin``), which fires no hook: off, a command runs only as it was reviewed.
CODEX_TTY_FEATURE = "unified_exec_tty"

#: How long one exchange with ``codex app-server`` may take before it counts as failed.
ANSWER_TIMEOUT = 60.0
#: The trust states under which Codex runs a hook.
RUNS = frozenset({"trusted", "managed"})


class CodexError(RuntimeError):
    """``codex app-server`` could not be asked, or refused."""


@dataclass(frozen=True, slots=True)
class CodexHook:
    """One hook as Codex loads it."""

    key: str
    command: str
    source_path: str
    current_hash: str
    trust: str
    enabled: bool


def find_codex() -> str | None:
    """The ``codex`` the agent's user runs: the first on ``PATH``."""
    return shutil.which("codex")


class _Session:
    """One ``codex app-server`` process spoken to in JSON-RPC lines on stdio."""

    def __init__(self, codex: str, cwd: Path) -> None:
        try:
            self.proc = subprocess.Popen(
                [codex, "app-server"], cwd=cwd, env=os.environ.copy(), text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )  # fmt: skip
        except OSError as exc:
            raise CodexError(f"cannot start {codex} app-server: {exc}") from exc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.warnings: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._next = 0
        self.request("initialize", {"clientInfo": {"name": "handoff-gate", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise CodexError(f"codex app-server stopped: {exc}") from exc

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=ANSWER_TIMEOUT)
            except queue.Empty:
                raise CodexError(f"codex app-server did not answer {method}") from None
            if line is None:
                raise CodexError(f"codex app-server exited before answering {method}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if message.get("method") == "configWarning":
                summary = (message.get("params") or {}).get("summary")
                if isinstance(summary, str):
                    self.warnings.append(summary)
            if message.get("id") != self._next:
                continue
            if "error" in message:
                error = message["error"]
                text = error.get("message") if isinstance(error, dict) else error
                raise CodexError(f"codex app-server refused {method}: {text}")
            return message.get("result")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _hooks(session: _Session, cwd: Path) -> list[CodexHook]:
    result = session.request("hooks/list", {"cwds": [str(cwd)]})
    found = []
    for entry in (result or {}).get("data") or []:
        for hook in entry.get("hooks") or []:
            if hook.get("handlerType") != "command":
                continue
            found.append(
                CodexHook(
                    key=str(hook.get("key")),
                    command=str(hook.get("command")),
                    source_path=str(hook.get("sourcePath")),
                    current_hash=str(hook.get("currentHash")),
                    trust=str(hook.get("trustStatus")),
                    enabled=hook.get("enabled") is True,
                )
            )
    return found


@dataclass(frozen=True, slots=True)
class CodexView:
    """What Codex loads in a folder: its command hooks, whether its hooks feature is on
    (``[features] hooks``; off, it runs none), and the warnings it gave about its config."""

    hooks: list[CodexHook]
    hooks_on: bool
    warnings: list[str]
    #: ``[features] unified_exec_tty`` not off: a command's terminal takes typed input
    #: (``write_stdin``) that no hook sees.
    terminal_input: bool = True


def loaded_hooks(codex: str, cwd: Path) -> CodexView:
    """The command hooks Codex loads in ``cwd``, as Codex itself sees its config there."""
    session = _Session(codex, cwd)
    try:
        config = (session.request("config/read", {"cwd": str(cwd)}) or {}).get("config")
        features = config.get("features") if isinstance(config, dict) else None
        on = features if isinstance(features, dict) else {}
        hooks_on = on.get("hooks") is not False
        terminal_input = on.get(CODEX_TTY_FEATURE) is not False
        return CodexView(_hooks(session, cwd), hooks_on, session.warnings, terminal_input)
    finally:
        session.close()


def trust(codex: str, cwd: Path, hooks: list[CodexHook]) -> None:
    """Record Codex's trust in ``hooks`` at their current hash, as its ``/hooks`` screen
    does."""
    session = _Session(codex, cwd)
    try:
        value = {hook.key: {"trusted_hash": hook.current_hash} for hook in hooks}
        edit = {"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": value}
        session.request("config/batchWrite", {"edits": [edit]})
    finally:
        session.close()
