"""Regenerate the walkthrough's picture of ``handoff-gate serve`` in a phone's browser.

    .venv/bin/python docs/screenshots/serve_screenshot.py

Runs the real command on a scratch run holding the sample plan, opens the address it
prints in Debian's Chromium (``/usr/bin/chromium``, driven by playwright) at a phone's
size in landscape, waits until the handoff is inspected and saves the page as
``serve-phone.png`` next to this script; then turns the phone upright (390x844), where
the app shows one pane at a time, opens the handoff with Enter and saves
``serve-phone-portrait.png``. Nothing else in the repository is touched.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import ViewportSize, sync_playwright

from handoff_gate.schemas import example_path

OUT = Path(__file__).resolve().parent / "serve-phone.png"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
#: A common phone held sideways, in CSS pixels.
VIEWPORT: ViewportSize = {"width": 915, "height": 412}
#: The same phone upright, and where its picture goes.
PORTRAIT: ViewportSize = {"width": 390, "height": 844}
PORTRAIT_OUT = OUT.with_name("serve-phone-portrait.png")
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
                # Upright, the page is too narrow for two panes: the list alone, then
                # Enter opens the handoff in its place.
                page.set_viewport_size(PORTRAIT)
                page.wait_for_timeout(1000)
                sent.clear()
                page.keyboard.press("Enter")
                deadline = time.monotonic() + 30
                while b"APPROVABLE" not in b"".join(sent):
                    if time.monotonic() > deadline:
                        raise SystemExit("Enter never opened the handoff on the upright phone")
                    page.wait_for_timeout(50)
                page.wait_for_timeout(1000)
                page.screenshot(path=str(PORTRAIT_OUT))
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print(OUT)
    print(PORTRAIT_OUT)


if __name__ == "__main__":
    main()
