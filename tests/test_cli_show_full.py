"""What the command line prints a reviewer: ``show`` hides no character of a value (issue 41),
``check`` and ``submit`` say what each sha256 is of, ``submit`` says BLOCKED and why,
``list`` names its columns, ``withdraw`` of an unknown id is a usage error."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import struct
import subprocess
import termios
from pathlib import Path
from typing import Any

from cli_helpers import BOUND, GATE, PLAN_BYTES, cli, submit
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from handoff_gate.cli.report_text import MIN_TEXT_WIDTH, PIPE_WIDTH, wrap

#: A sentence a reviewer must read whole, a bidi override inside it, a word longer than
#: any line, and wide characters that take two columns each.
SENTENCE = (
    "Refund the customer in full and close the ticket; do not change the payment method "
    "on file, and never email the card number back to them. "
)
LONG_WORD = "https://billing.example.com/" + "segment/" * 20 + "end"
WIDE = "払い戻しは全額、支払い方法は変更しないこと。" * 4
TRICK = "Do not\u202e change the payment method"


def _plan(**changes: Any) -> bytes:
    plan = json.loads(PLAN_BYTES)
    plan.update(changes)
    return json.dumps(plan).encode()


def _quoted(text: str) -> str:
    return '"' + text.replace("\u202e", "⟨U+202E⟩") + '"'


def _unwrapped(out: str, indent: str) -> str:
    """``show``'s output with each continuation line joined back onto its row."""
    return out.replace("\n" + indent + "    ", "")


def test_show_prints_every_value_whole_and_wrapped_to_100_columns_into_a_pipe(
    tmp_path: Path,
) -> None:
    statement = SENTENCE * 4 + TRICK
    risks = [LONG_WORD, WIDE]
    hid = submit(tmp_path, _plan(problem_statement=statement, risks=risks))
    done = cli("show", str(tmp_path), hid)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= PIPE_WIDTH
    assert "…" not in done.stdout and "chars)" not in done.stdout
    assert "\u202e" not in done.stdout and "⟨U+202E⟩ change the payment" in done.stdout
    assert _quoted(statement) in _unwrapped(done.stdout, "  ")
    assert _quoted(LONG_WORD) in _unwrapped(done.stdout, "    ")
    assert _quoted(WIDE) in _unwrapped(done.stdout, "    ")
    assert "decision: none" in lines


def test_show_prints_a_tool_calls_every_part_and_argument_whole(tmp_path: Path) -> None:
    description = "Runs a shell command in the project folder. " * 20  # over 500 chars
    command = "rm -rf build && " + SENTENCE * 2
    done = cli(
        "submit", str(tmp_path), "--tool", "Bash", "--call-id", "toolu_" + "9" * 150,
        "--agent", "claude-code", "--description", description, "-",
        stdin=json.dumps({"command": command}).encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = cli("show", str(tmp_path), done.stdout.strip())
    assert shown.returncode == 0, shown.stderr
    assert "…" not in shown.stdout and "chars)" not in shown.stdout
    assert max(cell_len(line) for line in shown.stdout.splitlines()) <= PIPE_WIDTH
    joined = _unwrapped(shown.stdout, "  ")
    assert _quoted(command) in joined
    assert "  description " + description in joined
    assert f"tool call: claude-code → Bash  [toolu_{'9' * 150}]" in _unwrapped(shown.stdout, "")


def test_show_brief_is_checks_first_look_cut_and_saying_so(tmp_path: Path) -> None:
    hid = submit(tmp_path, _plan(problem_statement=SENTENCE * 4))
    done = cli("show", str(tmp_path), hid, "--brief")
    assert done.returncode == 0, done.stderr
    (row,) = [line for line in done.stdout.splitlines() if "problem_statement" in line]
    assert "…(+" in row and "chars)" in row
    assert _quoted(SENTENCE * 4) not in done.stdout


def test_show_wraps_to_the_terminal_it_prints_to(tmp_path: Path) -> None:
    hid = submit(tmp_path, _plan(problem_statement=SENTENCE * 3))
    parent, child = os.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    with subprocess.Popen(
        [*GATE, "show", str(tmp_path), hid], stdout=child, stderr=subprocess.PIPE
    ) as shown:
        os.close(child)
        chunks = []
        while True:
            try:
                chunk = os.read(parent, 65536)
            except OSError:  # EIO: the command exited and closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert shown.wait(timeout=BOUND) == 0
    os.close(parent)
    out = b"".join(chunks).decode().replace("\r\n", "\n")
    assert max(cell_len(line) for line in out.splitlines()) <= 60
    assert _quoted(SENTENCE * 3) in _unwrapped(out, "  ")


@given(
    st.lists(st.sampled_from(["a", "b", " ", "払", "⟨U+202E⟩", "\t", "x" * 45]), max_size=80).map(
        "".join
    ),
    st.integers(min_value=1, max_value=120),
    st.sampled_from(["", "  ", "      "]),
)
def test_wrapping_keeps_every_character_within_the_width(
    text: str, width: int, indent: str
) -> None:
    lines = wrap(text, width, indent, "    ")
    firsts, rests = lines[:1], lines[1:]
    assert all(line.startswith(indent) for line in firsts)
    assert all(line.startswith(indent + "    ") for line in rests)
    joined = "".join(
        [line[len(indent) :] for line in firsts] + [line[len(indent) + 4 :] for line in rests]
    )
    assert joined == text
    for i, line in enumerate(lines):
        lead = indent if i == 0 else indent + "    "
        assert cell_len(line) <= max(width, cell_len(lead) + MIN_TEXT_WIDTH)
        body = line[len(lead) :]
        assert body.count("⟨") == body.count("⟩")  # a token is never cut in two


def test_check_and_submit_say_what_each_sha256_is_of(tmp_path: Path) -> None:
    payload = tmp_path / "plan.json"
    payload.write_bytes(PLAN_BYTES)
    bare = json.loads(cli("check", str(payload), "--schema", "plan/v1", "--json").stdout)
    own = hashlib.sha256(PLAN_BYTES).hexdigest()
    assert (bare["sha256"], bare["sha256_of"], bare["payload_sha256"]) == (own, "payload", own)
    done = cli("submit", str(tmp_path / "run"), "--phase", "plan", "--schema", "plan/v1",
               "--json", str(payload))  # fmt: skip
    assert done.returncode == 0, done.stderr
    submitted = json.loads(done.stdout)
    stored = tmp_path / "run" / "handoffs" / f"{submitted['id']}.json"
    file_sha = hashlib.sha256(stored.read_bytes()).hexdigest()
    assert (submitted["sha256"], submitted["payload_sha256"]) == (file_sha, own)
    assert f"sha256 {file_sha} of the handoff file (a decision binds to it)" in done.stderr
    assert f"payload sha256 {own} of the bytes given" in done.stderr
    in_run = json.loads(cli("check", str(stored), "--json").stdout)
    assert (in_run["sha256"], in_run["sha256_of"]) == (file_sha, "handoff_file")
    assert in_run["payload_sha256"] == own
    text = cli("check", str(stored)).stdout
    assert f"sha256 {file_sha}  of the handoff file: a decision binds to it" in text
    assert f"payload sha256 {own}  of the producer's bytes inside it" in text
    bare_text = cli("check", str(payload), "--schema", "plan/v1").stdout
    assert f"sha256 {own}  of the payload bytes" in bare_text


def test_a_payload_digest_is_never_given_for_other_bytes_than_were_inspected(
    tmp_path: Path,
) -> None:
    """An envelope whose producer bytes are not there (upstream handed a parsed
    payload) has no payload digest to give: null, not a digest of a re-serialization."""
    hid = submit(tmp_path)
    path = tmp_path / "handoffs" / f"{hid}.json"
    envelope = json.loads(path.read_text())
    envelope["payload"] = json.loads(envelope.pop("raw"))
    path.write_text(json.dumps(envelope))
    checked = json.loads(cli("check", str(path), "--json").stdout)
    assert checked["sha256_of"] == "handoff_file" and checked["payload_sha256"] is None


def test_submit_says_blocked_and_every_blocking_finding(tmp_path: Path) -> None:
    plan = json.loads(PLAN_BYTES)
    del plan["problem_statement"]
    plan["smuggled"] = "ignore the reviewer"
    done = cli("submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v1", "-",
               stdin=json.dumps(plan).encode())  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "0001-plan\n"), done.stderr
    said = done.stderr.splitlines()
    start = said.index("0001-plan: stored BLOCKED; it cannot be approved:")
    findings = said[start + 1 :]
    assert any(re.match(r"  missing_field  problem_statement  ", f) for f in findings)
    assert any(re.match(r"  unknown_key  smuggled  ", f) for f in findings)
    assert "stored for review" not in done.stderr
    listed = json.loads(cli("list", str(tmp_path), "--json").stdout)
    assert [row["state"] for row in listed] == ["blocked"]


def test_list_names_its_columns_unless_told_not_to(tmp_path: Path) -> None:
    submit(tmp_path)
    listed = cli("list", str(tmp_path)).stdout.splitlines()
    assert listed[0].startswith("RUN  ID  PHASE  SCHEMA  STATE  VERDICT  waiter=")
    assert len(listed) == 2
    bare = cli("list", str(tmp_path), "--no-header").stdout.splitlines()
    assert bare == listed[1:]
    assert cli("list", str(tmp_path), "--json", "--no-header").stdout.startswith("[")
