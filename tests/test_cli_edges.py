"""The CLI's edges: mistakes exit 2 with one clear line, before anything is waited on."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import pytest
from cli_helpers import PLAN_BYTES, cli, submit

from handoff_gate.cli.main import build_parser


def test_version_prints_the_installed_version() -> None:
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("handoff-gate 0.")


def test_submit_creates_a_runs_missing_parents_and_says_so_once(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "team" / "job-17"
    args = ("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "-")
    first = cli(*args, stdin=PLAN_BYTES)
    assert (first.returncode, first.stdout) == (0, "0001-plan\n"), first.stderr
    assert first.stderr.splitlines()[0] == f"new run {run}"
    again = cli(*args, stdin=PLAN_BYTES)
    assert again.stdout == "0002-plan\n"
    assert "new run" not in again.stderr


def test_submit_names_a_relative_new_run_by_its_absolute_path(tmp_path: Path) -> None:
    args = ("submit", "runs/job-17", "--phase", "plan", "--schema", "plan/v1", "-")
    done = cli(*args, stdin=PLAN_BYTES, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"new run {tmp_path / 'runs' / 'job-17'}"


def test_submit_through_a_file_where_a_folder_should_be_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text("not a folder")
    args = ("submit", str(tmp_path / "runs" / "job-17"), "--phase", "plan", "--schema", "plan/v1")
    done = cli(*args, "-", stdin=PLAN_BYTES)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "new run" not in done.stderr
    assert (tmp_path / "runs").read_text() == "not a folder"


def test_submit_of_an_unreadable_payload_creates_no_run(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "job-17"
    done = cli("submit", str(run), "--phase", "plan", "--schema", "plan/v1", "missing.json")
    assert done.returncode == 2
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("args", "command", "says"),
    [
        (["submit", "runs/job-17", "plan.json"], "submit", "required: --phase, --schema"),
        (["wait", "r", "0001-plan", "--timeout", "soon"], "wait", "--timeout"),
        (["list", "--state", "pending-ish"], "list", "invalid choice"),
        (["check", "plan.json", "--bogus"], "check", "unrecognized arguments: --bogus"),
        (["store"], "store", "required: ACTION"),
        (["bogus"], "", "invalid choice: 'bogus'"),
    ],
)
def test_an_argument_error_is_one_line_naming_the_help(
    args: list[str], command: str, says: str
) -> None:
    done = cli(*args)
    prog = f"handoff-gate {command}".strip()
    assert done.returncode == 2
    assert done.stderr.startswith(f"{prog}: error: ")
    assert says in done.stderr
    assert done.stderr.endswith(f" (see '{prog} --help')\n")
    assert len(done.stderr.splitlines()) == 1


def test_an_argument_error_echoes_argv_without_control_characters() -> None:
    done = cli("check", "plan.json", "--x\x1b]52;c;aGk=\x07\u202eevil")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert not any(c in done.stderr for c in "\x1b\x07\u202e")
    assert "evil" in done.stderr


def test_submit_reports_the_verdict_it_can_see_on_stderr(tmp_path: Path) -> None:
    args = ("submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v1", "-")
    empty = cli(*args, stdin=b"")
    assert (empty.returncode, empty.stdout.strip()) == (0, "0001-plan")
    assert "0001-plan: stored BLOCKED; it cannot be approved:\n  empty_input  (payload)" in (
        empty.stderr
    )
    good = cli(*args, stdin=PLAN_BYTES)
    assert good.stdout.strip() == "0002-plan"
    assert "0002-plan: stored for review (approvable)" in good.stderr
    assert "BLOCKED" not in good.stderr


def test_check_of_a_bare_payload_without_schema_suggests_it(tmp_path: Path) -> None:
    payload = tmp_path / "plan.json"
    payload.write_bytes(PLAN_BYTES)
    done = cli("check", str(payload))
    assert done.returncode == 1
    assert "--schema" in done.stderr


def test_check_of_a_directory_says_so(tmp_path: Path) -> None:
    done = cli("check", str(tmp_path))
    assert done.returncode == 2
    assert "is a directory" in done.stderr


def test_a_missing_handoff_is_worded_the_same_everywhere(tmp_path: Path) -> None:
    submit(tmp_path)
    expected = f"no handoff 0009-plan in {tmp_path}"
    waited = cli("wait", str(tmp_path), "0009-plan", "--timeout", "0")
    shown = cli("show", str(tmp_path), "0009-plan")
    decided = cli("decide", str(tmp_path), "0009-plan", "approve")
    assert (waited.returncode, shown.returncode, decided.returncode) == (2, 2, 2)  # a typo
    for done in (waited, shown, decided):
        assert expected in done.stderr


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "-inf", "soon"])
def test_timeout_must_be_finite_and_not_negative(tmp_path: Path, value: str) -> None:
    hid = submit(tmp_path)
    done = cli("wait", str(tmp_path), hid, f"--timeout={value}")
    assert done.returncode == 2
    assert "--timeout" in done.stderr
    assert "Traceback" not in done.stderr


def _refused_out(tmp_path: Path, target: Path) -> None:
    """``wait --out`` into ``target`` exits 2 at once, though the handoff is undecided."""
    hid = submit(tmp_path)
    done = cli("wait", str(tmp_path), hid, "--out", str(target), "--timeout", "30")
    assert done.returncode == 2, done.stderr
    assert "cannot write" in done.stderr


def test_wait_out_into_a_missing_folder_fails_before_waiting(tmp_path: Path) -> None:
    _refused_out(tmp_path, tmp_path / "missing" / "approved.json")


def test_wait_out_refuses_a_symlink(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("mine")
    link = tmp_path / "link.json"
    link.symlink_to(elsewhere)
    _refused_out(tmp_path, link)
    assert elsewhere.read_text() == "mine"


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_wait_out_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    if kind == "device":
        target = Path(os.devnull)
    else:
        target = tmp_path / "fifo"
        os.mkfifo(target)
    _refused_out(tmp_path, target)


def test_wait_out_keeps_an_existing_files_mode_and_dash_is_stdout(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    target = tmp_path / "approved.json"
    target.write_text("old")
    target.chmod(0o600)
    assert cli("wait", str(tmp_path), hid, "--out", str(target)).returncode == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert json.loads(target.read_text()) == json.loads(PLAN_BYTES)
    to_stdout = cli("wait", str(tmp_path), hid, "--out", "-")
    assert json.loads(to_stdout.stdout) == json.loads(PLAN_BYTES)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permission bits")
def test_a_permission_error_is_one_clear_line(tmp_path: Path) -> None:
    submit(tmp_path)
    (tmp_path / "handoffs").chmod(0o500)
    try:
        args = ("submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v1", "-")
        done = cli(*args, stdin=PLAN_BYTES)
    finally:
        (tmp_path / "handoffs").chmod(0o700)
    assert done.returncode == 2
    assert "permission denied" in done.stderr.lower()
    assert "Errno" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def test_every_option_has_help_and_defaults_are_shown() -> None:
    commands = _subparsers(build_parser())
    assert {"list", "show", "watch", "wait", "submit"} <= set(commands)
    for name, sub in commands.items():
        for action in sub._actions:
            assert action.help, f"{name} {action.dest} has no help"
    watch_help = commands["watch"].format_help()
    assert "(default: open)" in " ".join(watch_help.split())


def test_watch_read_only_is_parsed() -> None:
    args = build_parser().parse_args(["watch", "somewhere", "--read-only"])
    assert args.read_only is True
    assert build_parser().parse_args(["watch", "somewhere"]).read_only is False


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("mysql://admin:hunter2@db/x", "a mysql:// URL"),
        ("host=db password=hunter2", "this value"),
        ("postgresq://admin:hunter2@db/x", "a postgresq:// URL"),
    ],
)
def test_a_refused_store_url_never_echoes_its_credentials(spec: str, named: str) -> None:
    done = cli("--store", spec, "list")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "hunter2" not in done.stderr
    assert named in done.stderr
    assert "Traceback" not in done.stderr


def test_a_key_that_is_a_directory_is_named_as_one(tmp_path: Path) -> None:
    run = tmp_path / "run"
    submit(run)
    done = cli("decide", str(run), "0001-plan", "approve", "--key", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().endswith(f"{tmp_path} is a directory, not a key file")


def test_wait_without_a_policy_warns_about_the_run_directory(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    done = cli("wait", str(tmp_path), hid, "--timeout", "0")
    assert done.returncode == 3
    assert "any process that can write the run directory can approve" in done.stderr
