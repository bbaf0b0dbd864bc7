"""Who may read the viewer: a request must name the viewer itself as its host and carry the launch's token.

The viewer listens on 127.0.0.1 only, but a web page in the user's browser can still reach it: by DNS
rebinding (the page's own name is re-pointed at 127.0.0.1, so the browser's same-origin rule lets the page
read the answers) or by simply loading URLs on ``127.0.0.1:PORT`` from another origin. Two checks, before
any route runs, close both:

- **Host**: the ``Host`` header must be ``127.0.0.1``, ``localhost`` or ``[::1]`` at the viewer's port (or a
  name the user passed with ``reqbench view --host``). A rebound page's requests carry its own name and get
  403 and no data.
- **Token**: each launch draws a random token (256 bits) that appears only in the URL `reqbench view`
  prints. The first request that carries ``?token=...`` gets an HttpOnly, ``SameSite=Strict`` cookie and
  a redirect to the same URL without the token; every other request must bring that cookie (or the
  token). A page elsewhere cannot learn the token, and its requests carry no strict cookie, so it gets
  403 and no data.

The cookie is named after the port: browsers share cookies between ports of one host, and two viewers on
two ports must not replace each other's.
"""

from __future__ import annotations

import enum
import hmac
import re
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qsl, urlencode

from reqbench.core.errors import InputError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
TOKEN_PARAM = "token"
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")


class Admission(enum.Enum):
    """What the viewer does with one request."""

    SERVE = "serve"
    LOGIN = "login"
    """The right token in the query: set the cookie and redirect to the URL without it."""
    WRONG_HOST = "wrong host"
    NO_TOKEN = "no token"


def host_name(name: str) -> str:
    """`name` (``reqbench view --host NAME``) checked and lower-cased: a DNS name, an IPv4 address or a
    bracketed IPv6 address, no port."""
    if not _NAME.fullmatch(name):
        raise InputError(f"{name!r} is not a host name (a DNS name, an IPv4 address or [IPv6], no port)",
                         item="--host")
    return name.lower()


@dataclass(frozen=True)
class Gate:
    """The checks of the module docstring for one launch on `port`."""

    port: int
    extra_hosts: tuple[str, ...] = ()
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def cookie_name(self) -> str:
        return f"reqbench-view-{self.port}"

    def host_allowed(self, header: str | None) -> bool:
        """`header` names one of the accepted hosts at this port (without a port only on port 80)."""
        if not header:
            return False
        name, port = _split_host(header.strip().lower())
        if name not in (*LOOPBACK_NAMES, *self.extra_hosts):
            return False
        return port == str(self.port) or (port is None and self.port == 80)

    def admit(self, host: str | None, cookie: str | None, query: str) -> Admission:
        if not self.host_allowed(host):
            return Admission.WRONG_HOST
        offered = dict(parse_qsl(query, keep_blank_values=True)).get(TOKEN_PARAM)
        if offered is not None:
            return Admission.LOGIN if self._matches(offered) else Admission.NO_TOKEN
        return Admission.SERVE if self._matches(self._cookie(cookie)) else Admission.NO_TOKEN

    def login_headers(self, path: str, query: str) -> list[tuple[str, str]]:
        """The answer to `Admission.LOGIN`: the cookie, and the same URL without the token."""
        rest = urlencode([(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != TOKEN_PARAM])
        return [("Set-Cookie", f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"),
                ("Location", path + (f"?{rest}" if rest else ""))]

    def url(self, host: str = "127.0.0.1") -> str:
        """The URL to open: the first visit logs the browser in."""
        return f"http://{host}:{self.port}/?{TOKEN_PARAM}={self.token}"

    def _cookie(self, header: str | None) -> str | None:
        if not header:
            return None
        try:
            morsel = SimpleCookie(header).get(self.cookie_name)
        except CookieError:
            return None
        return morsel.value if morsel is not None else None

    def _matches(self, offered: str | None) -> bool:
        return offered is not None and hmac.compare_digest(offered.encode(), self.token.encode())


def _split_host(header: str) -> tuple[str, str | None]:
    """``name:port`` / ``[v6]:port`` / ``name`` -> (name, port or None)."""
    if header.startswith("["):
        name, _, rest = header.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else (None if not rest else "?")
    name, colon, port = header.rpartition(":")
    return (name, port) if colon else (header, None)
