"""``handoff-gate serve``: the ``watch`` review app in a browser, behind a token.

Everything that can be wrong is checked before the port opens, each a one-line usage
error (exit 2): the store, ``--key`` (one needing a passphrase is refused, as ``watch``
refuses it), ``--policy``, ``--token-file``, ``--public-url``, and a ``--host`` that is
not loopback without ``--allow-remote``. Then the server prints the address to open,
with its token, on stdout, and serves until SIGINT or SIGTERM, which end every tab's
app process before it exits 0.

Each tab runs ``handoff-gate watch`` with the options the server resolved (the
reviewer, key, policy and contracts it checked), spelt by ``watch``'s own parser; the
store's URL goes to it in its environment, never on a command line another account
could read. The tabs' errors go to stderr (``web_review.AppProcess``): stdout holds the
address only.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from handoff_gate.cli.errors import UsageError, flat
from handoff_gate.cli.notify_urls import notify_targets
from handoff_gate.cli.review_signing import unattended_signing
from handoff_gate.gates.decide.deciding_as import header_name
from handoff_gate.gates.decide.reviewer import default_reviewer
from handoff_gate.gates.store.select import StoreURLError, listed_store
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV, STORE_ENV
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
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.gate import Gate
    from handoff_gate.gates.notify.targets import Targets
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy


def run(gate: Gate, args: argparse.Namespace) -> int:
    if not is_loopback(args.host) and not args.allow_remote:
        raise UsageError(
            f"--host {args.host} is reachable from other machines; give --allow-remote "
            "and put TLS and a login in front (docs/security.md)"
        )
    public = _public_url(args.public_url)
    targets = notify_targets(args)
    url = os.environ.get(STORE_ENV, "") if args.store is None else args.store
    try:
        store = listed_store(url, args.root, "serve")
    except StoreURLError as exc:
        raise UsageError(str(exc)) from exc
    try:
        return _serve(args, store, url, public, targets)
    finally:
        store.close()


def _serve(
    args: argparse.Namespace,
    store: RunStore,
    url: str,
    public: str | None,
    targets: Targets | None,
) -> int:
    """Serve over ``store`` (the announcer's, when ``--notify-url`` is given) until
    SIGINT or SIGTERM."""
    where = store.label()
    key, policy = unattended_signing(args)
    checked = _check_contracts(args.schemas, policy)
    reviewer = args.reviewer or default_reviewer()
    token = _token(args.token_file)
    access = Access(
        token,
        cookie=f"handoff_gate_{hashlib.sha256(token.encode()).hexdigest()[:12]}",
        secure=public is not None and public.startswith("https:"),
        origin=None if public is None else origin_of(public),
    )
    server = ReviewServer(
        _app_command(args, reviewer),
        # A tab has no terminal to hand an editor: ``e`` edits in the app's own dialog.
        {STORE_ENV: url, "VISUAL": "", "EDITOR": ""},
        access=access,
        identity=Identity(header_name(reviewer, key, policy), args.read_only, where),
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

    try:
        with _announcing(store, targets, checked, policy, public):
            asyncio.run(serve_until_stopped(server, args.host, args.port, ready))
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {why}") from exc
    return 0


def _announcing(
    store: RunStore,
    targets: Targets | None,
    checked: Registry | None,
    policy: Policy | None,
    public: str | None,
) -> AbstractContextManager[object]:
    """``--notify-url``: one announcer for the server (not one per tab), linking to
    ``--public-url`` (which never holds the token); its warnings are stderr lines. Its
    contracts are those checked at start, or the built-in ones, loaded on its thread."""
    if targets is None:
        return nullcontext()
    from handoff_gate.cli.inputs import registry
    from handoff_gate.gates.notify.announcer import Announcer

    def contracts() -> Registry:
        return checked if checked is not None else registry("", policy)

    return Announcer(store, targets, contracts, policy=policy, link=public, warn=_say)


def _check_contracts(schemas: str | None, policy: Policy | None) -> Registry | None:
    """Extra contracts (``--schemas`` or its variable) load now, as ``watch`` loads them:
    a bad module, or one a policy does not pin, is a usage error before anything is
    served, not a failure in every tab. The contracts, when there are extra ones
    (``None``: the built-in ones only, not loaded here)."""
    spec = os.environ.get(SCHEMAS_ENV, "") if schemas is None else schemas
    if not spec:
        return None
    from handoff_gate.cli.inputs import registry

    return registry(spec, policy)


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
