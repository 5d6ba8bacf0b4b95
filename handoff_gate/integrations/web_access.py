"""Who may reach ``handoff-gate serve``: the holder of one secret token, nobody else.

The served page decides handoffs as the server's reviewer, so reaching it is the same as
holding that reviewer's authority. Every request passes ``Access.middleware`` before any
handler runs, so a refused request never starts an app process; every answer, errors
aiohttp makes included, carries ``SAFE_HEADERS``. The token, the cookie it is swapped
for, the origin check and the headers, rule by rule: docs/security.md, "Reviewing from
a browser".
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from aiohttp import hdrs, web

if TYPE_CHECKING:
    from aiohttp.typedefs import Handler

#: The query parameter that carries the token on the first visit.
TOKEN_PARAM = "token"  # noqa: S105 (a parameter name, not a secret)
#: A token from ``--token-file`` must be at least this long: it is the only lock.
MIN_TOKEN = 32
#: What a token may hold: it travels in a URL query and a cookie unquoted.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: The most a token file may hold: a token and a newline, with room to spare.
MAX_TOKEN_FILE = 4096
#: Every answer: never cached, never framed, never a referrer, never sniffed.
SAFE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
}
REFUSED = (
    "handoff-gate serve: this page needs its token; open the URL the server printed (…/?token=…)\n"
)


class TokenError(ValueError):
    """A ``--token-file`` that cannot be the lock: its message is one line."""


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def read_token(path: Path) -> str:
    """The token in ``path``: a regular file only its owner may read, holding a token
    long enough and URL-safe, else ``TokenError`` (a weak lock is refused, not used).

    The file is opened without blocking and judged by what was opened (``fstat``), so a
    FIFO, a device or a socket is refused at once rather than waited on, and a file
    swapped after a look cannot slip past it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise TokenError(f"cannot read the token file {path}: {_why(exc)}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise TokenError(f"the token file {path} is not a regular file")
        mode = opened.st_mode
        data = os.read(fd, MAX_TOKEN_FILE + 1)
    except OSError as exc:
        raise TokenError(f"cannot read the token file {path}: {_why(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_FILE:
        raise TokenError(f"the token file {path} is over {MAX_TOKEN_FILE} bytes")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise TokenError(f"the token in {path} may only hold letters, digits and - . _ ~") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenError(f"the token file {path} is open to other accounts (chmod 600 it)")
    token = text.strip()
    if len(token) < MIN_TOKEN:
        raise TokenError(f"the token in {path} is shorter than {MIN_TOKEN} characters")
    if not set(token) <= _TOKEN_CHARS:
        raise TokenError(f"the token in {path} may only hold letters, digits and - . _ ~")
    return token


def _why(exc: OSError) -> str:
    return exc.strerror.lower() if exc.strerror else str(exc)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server to this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _same(given: str | None, token: str) -> bool:
    """Constant-time equality; bytes, so any text a client sends is compared, not raised on."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode())


@dataclass(frozen=True)
class Access:
    """The token, the cookie that stands for it, and the origin pages are served from
    (``None``: the address the browser used). The cookie's name is unique per server:
    cookies ignore ports, and two servers on one host must not overwrite each other's."""

    token: str
    cookie: str
    secure: bool = False
    origin: str | None = None

    def url(self, base: str) -> str:
        """The address to open: ``base`` with the token."""
        return f"{base.rstrip('/')}/?{TOKEN_PARAM}={self.token}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse, swap the query token for the cookie, or pass on with safe headers."""
        by_query = _same(request.query.get(TOKEN_PARAM), self.token)
        if not (by_query or _same(request.cookies.get(self.cookie), self.token)):
            raise web.HTTPUnauthorized(text=REFUSED)
        upgrade = request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
        if upgrade and not self._own_origin(request):
            raise web.HTTPForbidden(text="handoff-gate serve: a websocket from another site\n")
        if by_query and not upgrade and request.method == hdrs.METH_GET:
            return self._swap(request)
        return await handler(request)

    def _swap(self, request: web.Request) -> web.StreamResponse:
        """The same address without the token, with the cookie set. The address is
        relative to the page (``./NAME``: a reverse proxy's path prefix is kept), its
        name percent-encoded whole, so neither ``//host``, ``\\host`` nor ``https:host``
        can make it another site's."""
        rest = request.rel_url.without_query_params(TOKEN_PARAM)
        where = "./" + quote(rest.name, safe="")
        if rest.raw_query_string:
            where = f"{where}?{rest.raw_query_string}"
        response = web.HTTPSeeOther(location=where)
        response.set_cookie(
            self.cookie, self.token, httponly=True, samesite="Strict", secure=self.secure, path="/"
        )
        return response

    def _own_origin(self, request: web.Request) -> bool:
        """A browser names the page's origin on every websocket; it must be ours."""
        origin = request.headers.get(hdrs.ORIGIN)
        if origin is None:
            return True  # not a browser: it cannot hold a browser's cookie
        if self.origin is not None:
            return origin == self.origin
        parts = urlsplit(origin)
        return parts.netloc == request.host and parts.scheme in ("http", "https")


async def secure_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: ``SAFE_HEADERS`` on every answer, errors included."""
    response.headers.update(SAFE_HEADERS)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an address, as a browser's ``Origin`` header says it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
