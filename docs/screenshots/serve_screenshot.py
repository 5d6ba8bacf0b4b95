"""Regenerate the walkthrough's picture of ``handoff-gate serve`` in a phone's browser.

    .venv/bin/python docs/screenshots/serve_screenshot.py

Runs the real command on a scratch run holding the sample plan, opens the address it
prints in Debian's Chromium (``/usr/bin/chromium``, driven by playwright) at a phone's
size in landscape, waits until the handoff is inspected and saves the page as
``serve-phone.png`` next to this script. Nothing else in the repository is touched.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from handoff_gate.schemas import example_path

OUT = Path(__file__).resolve().parent / "serve-phone.png"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
#: A common phone held sideways, in CSS pixels.
VIEWPORT = {"width": 915, "height": 412}
GATE = [sys.executable, "-m", "handoff_gate"]


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        runs = Path(scratch) / "runs"
        subprocess.run(
            [*GATE, "submit", str(runs / "release-42"), "--phase", "plan", "--schema", "plan/v1",
             str(example_path("plan/v1"))],
            check=True, capture_output=True,
        )  # fmt: skip
        server = subprocess.Popen(
            [*GATE, "serve", str(runs), "--port", "0", "--reviewer", "alice"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            with sync_playwright() as driver:
                browser = driver.chromium.launch(
                    executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
                )
                page = browser.new_page(viewport=VIEWPORT)
                sent: list[bytes] = []
                page.on(
                    "websocket",
                    lambda ws: ws.on(
                        "framereceived", lambda f: sent.append(f if isinstance(f, bytes) else b"")
                    ),
                )
                page.goto(url)
                deadline = time.monotonic() + 30
                while b"APPROVABLE" not in b"".join(sent):
                    if time.monotonic() > deadline:
                        raise SystemExit("the page never showed the inspected handoff")
                    page.wait_for_timeout(50)
                page.focus("#terminal textarea")  # focused, the footer offers the keys
                page.wait_for_timeout(1000)  # the last frames drawn
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print(OUT)


if __name__ == "__main__":
    main()
