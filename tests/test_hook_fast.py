"""The hook's fast path (``integrations.hook_fast``): a call an ``[[auto]]`` rule approves
is answered with the records and the answer the full command gives, byte for byte, and
every call it cannot vouch for goes to the full command with nothing written."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_policy import rules_policy
from test_cli_hook import AGENTS, BOUND
from test_rules_hook import RULES, shell_event

from handoff_gate.gates.contracts.json_schema import contract_from_json_schema
from handoff_gate.gates.inspect import tool_session
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.integrations import hook_fast
from handoff_gate.integrations.coding_agent_deadline import STOP_SIGNALS
from handoff_gate.integrations.coding_agents import FREE_FORM, HARNESSES, canonical
from handoff_gate.schemas import HARNESS_TOOLS

#: One clock for both paths, so their records can be compared whole.
STAMP = "2026-12-06T12:00:00.000Z"
#: A child that runs the hook with that clock: ``fast`` asks the fast path alone (exit
#: 99 when it would not answer), ``full`` the full command alone.
CHILD = """
import sys
from handoff_gate.gates.audit import log
log.now_iso = lambda: {stamp!r}
words = sys.argv[2:]
if sys.argv[1] == "fast":
    from handoff_gate.integrations.hook_fast import answered
    code = answered(words)
    sys.exit(99 if code is None else code)
sys.argv = ["handoff-gate", *words]
from handoff_gate.cli.main import console_main
sys.exit(console_main())
"""


def hook(
    way: str, agent: str, run: Path, policy: Path, data: dict[str, Any]
) -> subprocess.CompletedProcess[str]:
    argv = ["hook", agent, str(run), "--policy", str(policy)]
    return subprocess.run(
        [sys.executable, "-c", CHILD.format(stamp=STAMP), way, *argv],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )


def files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("agent", AGENTS)
def test_the_fast_path_writes_and_answers_what_the_full_command_does(
    tmp_path: Path, agent: str
) -> None:
    """Two calls in a row (a new run, then one holding the contract and a log), each
    through both paths into runs of the same name: the same answer, the same files."""
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    runs = {way: tmp_path / way / "run" for way in ("fast", "full")}
    for call in ("call-1", "call-2"):
        sent = shell_event(agent, f"git status --short {call}", call)
        done = {way: hook(way, agent, runs[way], policy, sent) for way in runs}
        assert done["fast"].returncode == 0, done["fast"].stderr  # 99: it fell through
        assert done["full"].returncode == 0, done["full"].stderr
        assert done["fast"].stdout == done["full"].stdout
        assert done["fast"].stderr == done["full"].stderr == ""
    assert files(runs["fast"]) == files(runs["full"])
    rows = json.loads(cli("list", str(runs["fast"]), "--json").stdout)
    assert [row["state"] for row in rows] == ["approved", "approved"]
    verified = cli("audit", str(runs["fast"]), "--verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_the_console_script_answers_a_rule_approved_call_without_pydantic(
    tmp_path: Path,
) -> None:
    """What makes the hook cheap for the agent: the process that answered loaded none of
    the full command's models (and the answer is the rule's allow)."""
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    code = (
        "import sys; from handoff_gate.console import console_main; code = console_main(); "
        "print('pydantic' in sys.modules, file=sys.stderr); sys.exit(code)"
    )
    run = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-c", code, "hook", "claude-code", str(run), "--policy", str(policy)],
        input=json.dumps(shell_event("claude-code", "git status")),
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert "rule read-only git" in output["permissionDecisionReason"]
    assert done.stderr == "False\n"


def test_the_session_annotation_is_the_one_inspection_reads() -> None:
    assert hook_fast.SESSION_KEY == tool_session.SESSION_KEY


def test_it_stops_on_the_signals_the_full_hook_stops_on() -> None:
    assert {*hook_fast.STOP_SIGNALS, signal.SIGINT} == set(STOP_SIGNALS)


def fall_through(
    monkeypatch: pytest.MonkeyPatch, words: list[str], data: dict[str, Any] | bytes
) -> None:
    """``answered`` leaves the call to the full command, and hands it the event."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    assert hook_fast.answered(words) is None
    assert sys.stdin.buffer.read() == raw  # the full command reads the same event


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


REJECTING = RULES  # "no rm" rejects any tool's rm
FALL_THROUGH_COMMANDS = {
    "no rule": "ls -la",
    "a reject rule": "rm -rf build",
    "compound": "git status; rm -rf /",
    "substitution": "git status $(rm -rf /)",
    "a secret": "git status AKIAIOSFODNN7EXAMPLE",
    "a bidi control": "git status \u202e",
    "an escape": "git status \x1b[2J",
    "a newline": "git status\nrm -rf /",
}


@pytest.mark.parametrize("why", sorted(FALL_THROUGH_COMMANDS))
@pytest.mark.parametrize("agent", AGENTS)
def test_a_call_it_cannot_vouch_for_falls_through_with_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str, why: str
) -> None:
    policy = rules_policy(tmp_path / "trust", rules=REJECTING).policy
    run = tmp_path / "run"
    words = ["hook", agent, str(run), "--policy", str(policy)]
    fall_through(monkeypatch, words, shell_event(agent, FALL_THROUGH_COMMANDS[why]))
    assert not run.exists()


def claude(**tool_input: Any) -> dict[str, Any]:
    data = shell_event("claude-code", "git status")
    data["tool_input"] = tool_input
    return data


@pytest.mark.parametrize(
    "data",
    [
        claude(command="git status", extra="not in the contract"),
        claude(command="git status", timeout="soon"),
        claude(command="git status", timeout=700000),
        claude(command="git status", timeout=1.5),
        claude(command="git status", run_in_background=1),
        claude(command="git status", description=""),
        claude(description="no command"),
        b'{"hook_event_name": "PreToolUse", "tool_name": "Bash"',
        b"not json",
    ],
    ids=[
        "unknown key",
        "wrong type",
        "over its maximum",
        "a fraction",
        "1 for true",
        "an empty string",
        "required missing",
        "cut off",
        "not json",
    ],
)
def test_arguments_the_contract_may_block_fall_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: dict[str, Any] | bytes
) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    fall_through(monkeypatch, ["hook", "claude-code", str(run), "--policy", str(policy)], data)
    assert not run.exists()


def test_a_policy_that_needs_more_than_the_rule_falls_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two approvals required: the rule's is one, a person gives the other."""
    policy = rules_policy(tmp_path / "trust", rules=RULES, required=2).policy
    run = tmp_path / "run"
    words = ["hook", "claude-code", str(run), "--policy", str(policy)]
    fall_through(monkeypatch, words, shell_event("claude-code", "git status"))
    assert not run.exists()


@pytest.mark.parametrize("setting", ["producers", "expires_in"])
def test_a_tool_call_rule_that_signs_or_expires_falls_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    extra = 'producers = ["bob"]' if setting == "producers" else 'expires_in = "1h"'
    text = policy.read_text().replace('phase = "tool-call"\n', f'phase = "tool-call"\n{extra}\n')
    policy.write_text(text)
    run = tmp_path / "run"
    words = ["hook", "claude-code", str(run), "--policy", str(policy)]
    fall_through(monkeypatch, words, shell_event("claude-code", "git status"))
    assert not run.exists()


@pytest.mark.parametrize(
    "words",
    [
        ["--key", "KEY"],
        ["--schemas", "contracts.py"],
        ["--policy-sha256", "0" * 64],
        ["--on-timeout", "ask"],
        ["--timeout", "soon"],
        ["--unknown"],
        ["second-run"],
        ["--policy", "POLICY"],  # given twice
    ],
    ids=lambda words: words[0],
)
def test_extra_words_fall_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: list[str]
) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    given = [w.replace("POLICY", str(policy)) for w in words]
    argv = ["hook", "claude-code", str(run), "--policy", str(policy), *given]
    fall_through(monkeypatch, argv, shell_event("claude-code", "git status"))
    assert not run.exists()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HANDOFF_GATE_STORE", "postgresql://gate@localhost/gate"),
        ("HANDOFF_GATE_KEY", "key"),
        ("HANDOFF_GATE_SCHEMAS", "contracts.py"),
    ],
)
def test_a_store_key_or_contracts_from_the_environment_fall_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    monkeypatch.setenv(name, value)
    words = ["hook", "claude-code", str(run), "--policy", str(policy)]
    fall_through(monkeypatch, words, shell_event("claude-code", "git status"))
    assert not run.exists()


def test_a_missing_or_broken_policy_falls_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('[[auto]]\nname = "x"\n')
    for policy in (tmp_path / "absent.toml", broken):
        words = ["hook", "claude-code", str(tmp_path / "run"), "--policy", str(policy)]
        fall_through(monkeypatch, words, shell_event("claude-code", "git status"))
    assert not (tmp_path / "run").exists()


def test_a_call_stored_before_is_left_to_the_full_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same event again (an agent retrying, or a person decided it first): the full
    command finds the stored call and its records; this path writes nothing more."""
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    sent = shell_event("claude-code", "git status")
    first = hook("fast", "claude-code", run, policy, sent)
    assert first.returncode == 0, first.stderr
    before = snapshot(run)
    fall_through(monkeypatch, ["hook", "claude-code", str(run), "--policy", str(policy)], sent)
    assert snapshot(run) == before


#: Arguments for each harness's plain tools: what the fast path may pass must be what
#: the full inspection finds nothing in.
SAMPLES: list[dict[str, Any]] = [
    {"command": "git status"},
    {"command": "git status", "timeout": 120000, "description": "show the tree"},
    {"command": "git status", "run_in_background": False},
    {"command": " "},
    {"command": "git log -1 --format=%H"},
    {"command": "git status 4111 1111 1111 1111"},
    {"command": "git status ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
    {"command": "echo é"},
    {"command": "echo \u200b"},
    {"command": "echo \x7f"},
    {"command": "bash"},
    {"command": "python3"},
    {"file_path": "/tmp/a.txt"},
    {"file_path": "/tmp/a.txt", "offset": 1, "limit": 10},
    {"file_path": "/tmp/a.txt", "offset": -1},
    {"absolute_path": "/tmp/a.txt"},
    {"path": "/tmp"},
    {"pattern": "*.py"},
    {"pattern": "TODO", "path": "src"},
    {"url": "https://example.com", "prompt": "summarise"},
    {"cmd": "git status"},
    {"cmd": "git status", "tty": True},
    {"cmd": "bash", "tty": True},
]


@pytest.mark.parametrize("agent", AGENTS)
def test_what_the_fast_path_passes_the_full_inspection_passes_too(agent: str) -> None:
    harness = HARNESSES[agent]
    tools = json.loads((HARNESS_TOOLS / harness.contracts_file).read_text())["tools"]
    passed = 0
    for tool in tools:
        schema, _ = harness.contract(tool)
        assert schema is not FREE_FORM
        contract = contract_from_json_schema(schema)
        for args in SAMPLES:
            text = canonical(args).encode()
            plain = hook_fast.plainly_valid(schema, args)
            if not (plain and hook_fast.plainly_clean(schema, args, text)):
                continue
            passed += 1
            report = inspect(text, "t/v1", {"t/v1": contract}, InspectOptions(tool_call=True))
            assert report.approvable and not report.findings, (tool, args, report.findings)
    assert passed  # the shell call at least: the path is not a path nobody takes


def catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (``SigCgt`` in its status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def test_a_stop_signal_while_it_reads_the_event_blocks_the_call(tmp_path: Path) -> None:
    """The agent giving up on the hook (SIGTERM) before the event is read: exit 2 (every
    harness's block) with one line, never a default death the agent reads as "run it"."""
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    argv = ["hook", "claude-code", str(run), "--policy", str(policy)]
    hook = subprocess.Popen(
        [sys.executable, "-m", "handoff_gate", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + BOUND
        while not catches(hook.pid, signal.SIGTERM):  # its handler is set: it is reading
            assert hook.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        hook.send_signal(signal.SIGTERM)
        out, err = hook.communicate(timeout=BOUND)
    finally:
        if hook.poll() is None:
            hook.kill()
            hook.communicate(timeout=BOUND)
    assert hook.returncode == 2
    assert err == "handoff-gate hook claude-code: stopped by SIGTERM; the call is blocked\n"
    assert out == "" and not run.exists()


def test_the_rules_read_a_command_without_the_grammar_packages_init() -> None:
    """The grammar comes from its extension module alone: the same words, and none of
    what the package's ``__init__`` imports (``importlib.resources``, ``tempfile``)."""
    code = (
        "import sys; from handoff_gate.gates.rules.shell import simple_command; "
        "print(simple_command('git status --short'), simple_command('git status; rm x'), "
        "sorted({'tree_sitter_bash', 'importlib.resources', 'tempfile'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "('git', 'status', '--short') None []\n"


#: Text a producer's arguments may hold that the full inspection reads closely: refusals,
#: secrets' markers, look-alike and invisible characters, escapes, blank-looking strings.
TRICKY = [
    "I'm sorry, but I can't help with that.",
    "As an AI language model, I cannot",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "password=hunter2",
    "4111 1111 1111 1111",
    "\u00a0", "\u2003", "\u3000", "\u200b", "\u200d", "\u2028", "\u202e", "\ufeff",
    "\x1b[31m", "\x00", "\x7f", "\r", "\t", "\\u0041", "\\n", "é", "ｇｉｔ",
    "{", "```", "...", "[truncated]", " ", "   ",
]  # fmt: skip
WORDS = st.text(
    st.characters(codec="ascii", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=30
)
TEXT = st.one_of(
    WORDS,
    st.text(max_size=30),
    st.lists(st.sampled_from(TRICKY) | WORDS, min_size=1, max_size=3).map("".join),
    st.sampled_from(TRICKY),
)
VALUE = st.one_of(
    TEXT,
    st.integers(min_value=-(2**60), max_value=2**60),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.lists(st.integers() | TEXT, max_size=2),
)


#: A value of each JSON type the plain path judges, as a property of that type draws it.
TYPED = {
    "string": TEXT,
    "integer": st.integers(min_value=-(2**54), max_value=2**54),
    "number": st.integers(min_value=-(2**54), max_value=2**54) | st.floats(allow_nan=False),
    "boolean": st.booleans(),
}


def _flat(schema: dict[str, Any]) -> bool:
    properties = schema.get("properties", {}).values()
    return all(prop.get("type") in TYPED and "items" not in prop for prop in properties)


#: The harnesses' tool schemas whose properties are all flat: the ones the path may answer.
FLAT_SCHEMAS = [
    tool["input_schema"]
    for agent in AGENTS
    for tool in json.loads((HARNESS_TOOLS / HARNESSES[agent].contracts_file).read_text())[
        "tools"
    ].values()
    if _flat(tool["input_schema"])
]


@st.composite
def flat_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A flat tool schema of a harness and arguments for it: each optional property there
    or not, mostly of its declared type (an enum's values among them), now and then of
    another; now and then an extra key."""
    schema = draw(st.sampled_from(FLAT_SCHEMAS))
    args: dict[str, Any] = {}
    for name, prop in sorted(schema.get("properties", {}).items()):
        if name not in schema.get("required", []) and draw(st.booleans()):
            continue
        typed = TYPED.get(prop.get("type"), VALUE)
        if "enum" in prop:
            typed = st.sampled_from(prop["enum"]) | typed
        args[name] = draw(typed if draw(st.integers(0, 9)) else VALUE)
    if not draw(st.integers(0, 9)):
        args[draw(st.text(min_size=1, max_size=8))] = draw(VALUE)
    return schema, args


@settings(max_examples=600, deadline=None)
@given(flat_calls())
def test_drawn_arguments_the_fast_path_passes_the_full_inspection_passes_too(
    call: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Ground truth is the full inspection: any arguments the fast path would answer
    (plainly valid and plainly clean) must be ones it finds nothing in."""
    schema, args = call
    text = canonical(args).encode()
    if not (hook_fast.plainly_valid(schema, args) and hook_fast.plainly_clean(schema, args, text)):
        return
    contract = contract_from_json_schema(schema)
    report = inspect(text, "t/v1", {"t/v1": contract}, InspectOptions(tool_call=True))
    assert report.approvable and not report.findings, (args, report.findings)
