"""Where notifications go: Apprise URLs, each checked once when given, sent to later.

``apprise`` is imported only when a URL is given: most runs notify nobody. A URL can hold
a secret, so none is ever printed whole: only its scheme, and host when Apprise reads it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from handoff_gate.gates.vocab.extras import needs_extra
from handoff_gate.gates.vocab.safe_text import elide, visible

if TYPE_CHECKING:
    from apprise import Apprise

#: The longest one send may take, every URL together (Apprise's own limit on the call;
#: each service also has its connect and read timeouts, 4 s each unless the URL says
#: ``cto``/``rto``). The sender is a thread of its own: a slow endpoint delays only it.
SEND_TIMEOUT_S = 10.0
#: How much of a failure's reason a warning quotes.
REASON_CHARS = 200


class NotifyURLError(ValueError):
    """A URL Apprise does not understand; the message is one line, without the URL's
    secrets."""


@dataclass(frozen=True)
class Failure:
    """One URL a notification did not reach: its redacted name and why (one line)."""

    target: str
    reason: str

    def __str__(self) -> str:
        return f"a notification to {self.target} failed: {self.reason}"


class Targets:
    """Checked Apprise URLs. Make them with ``targets``; ``send`` from one thread."""

    def __init__(self, sender: Apprise) -> None:
        self._apprise = sender
        #: Each URL as a warning names it (secrets masked, no query string).
        self.names = tuple(_name(url) for url in sender.urls(privacy=True))

    def send(self, title: str, body: str, *, timeout: float = SEND_TIMEOUT_S) -> list[Failure]:
        """Send one notification to every URL; the URLs it did not reach, each with why.
        Never raises for an endpoint's sake: a failure is a value, for a warning."""
        from apprise import NotifyFormat

        try:
            result = self._apprise.notify(
                body=body, title=title, body_format=NotifyFormat.TEXT, timeout=timeout
            )
        except Exception as exc:  # Apprise's own error: a warning, never the caller's crash
            return [Failure(", ".join(self.names), _one_line(str(exc)))]
        failures = []
        for service in result:
            if service:
                continue
            said = [entry.message for attempt in service.attempts for entry in attempt.logs]
            why = said[-1] if said else f"{service.status.name.lower()}"
            failures.append(Failure(_name(service.url), _one_line(why)))
        if not failures and not result:
            failures.append(Failure(", ".join(self.names), result.status.name.lower()))
        return failures


def targets(urls: Sequence[str]) -> Targets:
    """``urls`` checked now (``NotifyURLError`` names the first Apprise cannot use), so a
    mistake stops a command before it starts rather than when the first handoff waits."""
    if not urls:
        raise NotifyURLError("no --notify-url given")
    with needs_extra("notify"):
        from apprise import Apprise

    _quiet()
    sender = Apprise()
    for number, url in enumerate(urls, 1):
        service = Apprise.instantiate(url)
        if service is None:
            raise NotifyURLError(
                f"--notify-url {_scheme(url)} (the {_ordinal(number)}) is not a URL Apprise "
                "can send to (each service's form: https://github.com/caronc/apprise/wiki)"
            )
        sender.add(service)
    return Targets(sender)


def _quiet() -> None:
    """Apprise logs each failure too; it is reported once, by the caller's warning. With
    no handler of the application's, Python's last resort would print it on stderr, which
    is the review app's screen."""
    logger = logging.getLogger("apprise")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _name(url: str) -> str:
    """A URL as a warning names it: Apprise's privacy form (passwords and tokens it
    knows of masked) cut to its scheme and host, the path shown as ``…``: a path can be
    a secret Apprise does not mask (a public ntfy topic, a webhook's key)."""
    scheme, sep, rest = url.split("?", 1)[0].partition("://")
    host, slash, path = rest.partition("/")
    return _one_line(f"{scheme}{sep}{host}{slash}{'…' if path.strip('/') else ''}")


def _scheme(url: str) -> str:
    """All a warning says of a URL Apprise cannot read: its scheme, if it has one."""
    scheme, sep, _ = url.partition("://")
    if not sep or not scheme.isascii() or not scheme.replace("+", "").isalnum():
        return "'…'"
    return f"'{scheme[:20]}://…'"


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10)
    return f"{number}{suffix or 'th'}"


def _one_line(text: str) -> str:
    return elide(visible(" ".join(text.split())), REASON_CHARS)
