"""``handoff-gate serve`` in Debian's Chromium: what a reviewer on a phone waits for.

Three figures, each beside the terminal app doing the same, measured in the same run:

- **first screen**: from opening the printed address (token, redirect, page, script,
  websocket, a new ``watch`` process) to the terminal being sent the handoff's row,
  against ``watch`` in a pseudo-terminal from spawn to the same row (goal ≤ 3 s).
- **key to decision**: from pressing ``y`` in the approve dialog to the decision record
  on disk, against ``handoff-gate decide`` from spawn to its record (goal ≤ 1 s).
- **memory**: the peak resident memory of one browser session's app process (the
  server's share is one process for all tabs), against ``watch`` in a terminal.

Each repetition reviews a run of its own in one folder served by one server: the row
names the run, so the marker is unique, and earlier runs are decided, so the list opens
on the new one.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import child_env
from bench.pty_paint import first_paint
from bench.stats import summarize
from handoff_gate.gates.api import submit
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.schemas import example_path

FIRST_SCREEN = Target(stat="p95", limit=3000.0)
KEY_TO_DECISION = Target(stat="p95", limit=1000.0)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
BOUND_S = 60.0
HANDOFF = "0001-plan"


def _until(condition: Any, what: str, page: Any = None) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        if page is not None:
            page.wait_for_timeout(5)
        else:
            time.sleep(0.002)


class _Tab:
    """A tab and the text its terminal was sent."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.sent: list[bytes] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes):
            self.sent.append(payload)

    def shows(self, words: bytes, since: int = 0) -> None:
        _until(lambda: words in b"".join(self.sent[since:]), f"never shown: {words!r}", self.page)


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for {pid}")


def _app_pid(server: int) -> int:
    """The one ``watch`` process the server runs now."""
    for task in Path(f"/proc/{server}/task").iterdir():
        for child in (task / "children").read_text().split():
            if b"watch" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
    raise RuntimeError("no app process")


def _review_in_browser(
    browser: Any, url: str, server: int, run: Path
) -> tuple[float, float, float]:
    tab = _Tab(browser.new_page(viewport={"width": 900, "height": 700}))
    try:
        opened = time.perf_counter()
        tab.page.goto(url)
        tab.shows(run.name.encode())
        first = (time.perf_counter() - opened) * 1000
        tab.shows(b"APPROVABLE")
        tab.page.focus("#terminal textarea")
        mark = len(tab.sent)
        tab.page.keyboard.press("a")
        tab.shows(b"Approve this handoff?", since=mark)
        record = run / "decisions" / f"{HANDOFF}.json"
        pressed = time.perf_counter()
        tab.page.keyboard.press("y")
        _until(record.exists, f"no decision in {run}")
        decided = (time.perf_counter() - pressed) * 1000
        memory = _vm_hwm_mb(_app_pid(server))
    finally:
        tab.page.close()
    return first, decided, memory


def _decide(gate: str, run: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [gate, "decide", str(run), HANDOFF, "approve", "--reviewer", "bench"],
        check=True,
        capture_output=True,
        timeout=BOUND_S,
    )
    return (time.perf_counter() - started) * 1000


def run(ctx: Context) -> list[Figure]:
    from playwright.sync_api import sync_playwright

    gate = str(ctx.bin_dir / "handoff-gate")
    served, plain = ctx.workdir / "served", ctx.workdir / "plain"
    plan = example_path("plan/v1").read_bytes()
    series: dict[str, list[float]] = {k: [] for k in ("first", "paint", "key", "decide", "mb")}
    watch_mb: list[float] = []
    server = subprocess.Popen(
        [gate, "serve", str(served), "--port", "0", "--reviewer", "bench"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=child_env(),
    )
    served.mkdir(parents=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for rep in range(ctx.profile.startup_reps):
                    run_dir = served / f"served-{rep:03d}"
                    submit(run_dir, plan, phase="plan", schema_id="plan/v1",
                           store=FilesystemStore(served))  # fmt: skip
                    first, key, mb = _review_in_browser(browser, url, server.pid, run_dir)
                    series["first"].append(first)
                    series["key"].append(key)
                    series["mb"].append(mb)
                    twin = plain / f"plain-{rep:03d}"
                    submit(twin, plan, phase="plan", schema_id="plan/v1",
                           store=FilesystemStore(plain))  # fmt: skip
                    paint = first_paint([gate, "watch", str(twin)], twin.name.encode(), settle=True)
                    series["paint"].append(paint.seconds * 1000)
                    watch_mb.append(paint.peak_rss_mb)
                    series["decide"].append(_decide(gate, twin))
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(BOUND_S)
    return [
        Figure(
            name="serve.first_screen",
            unit="ms",
            value=summarize(series["first"]),
            baseline_name="watch in a terminal (spawn to the row)",
            baseline=summarize(series["paint"]),
            target=FIRST_SCREEN,
            note="open the printed URL in Chromium -> the handoff's row on the page",
        ),
        Figure(
            name="serve.key_to_decision",
            unit="ms",
            value=summarize(series["key"]),
            baseline_name="decide (spawn to record)",
            baseline=summarize(series["decide"]),
            target=KEY_TO_DECISION,
            note="y in the page's approve dialog -> the decision record on disk",
        ),
        Figure(
            name="serve.session_rss",
            unit="MB",
            value=summarize(series["mb"]),
            baseline_name="watch in a terminal (peak RSS)",
            baseline=summarize(watch_mb),
            note="peak resident memory of one browser session's app process",
        ),
    ]
