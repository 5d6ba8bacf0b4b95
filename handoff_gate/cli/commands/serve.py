"""``handoff-gate serve``: the ``watch`` review app in a browser, behind a token.

Everything that can be wrong is a one-line usage error before the port opens. Each tab
runs ``handoff-gate watch`` with the options the server checked, spelt by ``watch``'s
own parser; the store's URL goes to it in its environment, never on a command line
another account could read. stdout holds the address alone (``web_review.AppProcess``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from handoff_gate.cli.errors import UsageError, flat
from handoff_gate.cli.notify_urls import notify_targets
from handoff_gate.gates.vocab.environment import STORE_ENV
from handoff_gate.integrations.web_access import (
    Access,
    TokenError,
    is_loopback,
    new_token,
    origin_of,
    read_token,
)
from handoff_gate.integrations.web_review import Identity, Limits, ReviewServer, serve_until_stopped

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Gate


def run(gate: Gate, args: argparse.Namespace) -> int:
    """Serve the review app over ``gate``'s store (every run of ``--store``, or of the
    folder ROOT) until SIGINT or SIGTERM; each tab is a ``watch`` of the same settings."""
    if not is_loopback(args.host) and not args.allow_remote:
        raise UsageError(
            f"--host {args.host} is reachable from other machines; give --allow-remote "
            "and put TLS and a login in front (docs/security.md)"
        )
    public = _public_url(args.public_url)
    targets = notify_targets(args)
    # A mistake in the store, the policy or a named contracts module is said now, not in
    # every tab; the built-in contracts load when the announcer first needs them.
    where = gate.store.label()
    if gate.config is not None and gate.config.schemas:
        _ = gate.contracts
    reviewer = args.reviewer or gate.default_reviewer()
    token = _token(args.token_file)
    access = Access(
        token,
        cookie=f"handoff_gate_{hashlib.sha256(token.encode()).hexdigest()[:12]}",
        secure=public is not None and public.startswith("https:"),
        origin=None if public is None else origin_of(public),
    )
    url = gate.config.store if gate.config is not None else ""
    server = ReviewServer(
        _app_command(args, reviewer),
        # A tab has no terminal to hand an editor: ``e`` edits in the app's own dialog.
        {STORE_ENV: url, "VISUAL": "", "EDITOR": ""},
        access=access,
        identity=Identity(gate.deciding_as(reviewer), args.read_only, where),
        limits=Limits(sessions=args.max_sessions, idle_s=args.idle_timeout),
        public_url=public,
        report=_say,
        errors=sys.stderr,
    )

    def ready(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(access.url(public or f"http://{host}:{port}"), flush=True)
        _say(
            f"{'reviewing' if args.read_only else 'deciding'} as "
            f"{server.identity.reviewer} on {host}:{port}; at most {args.max_sessions} "
            f"sessions, each ended after {args.idle_timeout:g} s idle; Ctrl+C stops"
        )

    # ``--notify-url``: one announcer for the server (not one per tab), linking to
    # ``--public-url`` (which never holds the token); its warnings are stderr lines.
    beside = nullcontext() if targets is None else gate.announcer(targets, link=public, warn=_say)
    try:
        with beside:
            asyncio.run(serve_until_stopped(server, args.host, args.port, ready))
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {why}") from exc
    return 0


def _say(line: str) -> None:
    print(f"handoff-gate serve: {flat(line)}", file=sys.stderr, flush=True)


def _public_url(url: str | None) -> str | None:
    """``--public-url``: an http(s) address with a host, nothing after its path, and no
    user name or password: it is printed, put in the page and sent in every notification,
    so credentials in it would reach everyone who is told of a handoff."""
    if url is None:
        return None
    wrong = UsageError("--public-url must be an http:// or https:// address with a host")
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # a bad port or bracket raises here, not later
    except ValueError as exc:
        raise wrong from exc
    if parts.scheme not in ("http", "https") or not host:
        raise wrong
    if "@" in parts.netloc:
        raise UsageError(
            "--public-url must not hold a user name or password (it is printed and sent in "
            "notifications); put the login in the proxy in front"
        )
    if parts.query or parts.fragment:
        raise UsageError("--public-url takes no query or fragment")
    return url.rstrip("/")


def _token(path: str | None) -> str:
    if path is None:
        return new_token()
    try:
        return read_token(Path(path))
    except TokenError as exc:
        raise UsageError(str(exc)) from exc


def _app_command(args: argparse.Namespace, reviewer: str) -> list[str]:
    """``handoff-gate watch`` for each tab: every option of ``watch`` this server shares
    (the same ``dest``), as resolved here (paths absolute, the reviewer named), spelt by
    ``watch``'s own parser. ``--notify-url`` is the server's alone: it tells once."""
    from handoff_gate.cli.main import build_parser

    resolved = {
        **vars(args),
        "root": str(Path(args.root).absolute()) if args.root else None,
        "reviewer": reviewer,
        "key": args.key and str(args.key.path.absolute()),
        "policy": args.policy and str(args.policy.path.absolute()),
        "notify_url": None,
    }
    (commands,) = (a.choices for a in build_parser("watch")._actions if isinstance(a.choices, dict))
    argv = [sys.executable, "-m", "handoff_gate", "watch"]
    for action in commands["watch"]._actions:
        value = resolved.get(action.dest)
        if value is True:
            argv.append(action.option_strings[0])
        elif isinstance(value, str):
            argv += [*action.option_strings[:1], value]
    return argv
