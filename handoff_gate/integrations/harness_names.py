"""The coding agents ``hook`` answers for, by name: the one list.

Parsing ``hook``'s arguments needs the names but not the harnesses, so they are spelt
here, where importing loads nothing else (``cli.main``'s choices); each harness class in
``integrations.coding_agents`` takes its name from here, and ``HARNESSES`` follows.
"""

CLAUDE_CODE, CODEX, GEMINI = "claude-code", "codex", "gemini"
HARNESS_NAMES = (CLAUDE_CODE, CODEX, GEMINI)
