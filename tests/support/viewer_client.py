"""A browser-like client of `reqbench view` for tests: opens the printed URL (which sets the launch's
cookie), then fetches pages with that cookie, as a person's browser does."""

from __future__ import annotations

import http.cookiejar
import urllib.error
import urllib.request


class ViewerClient:
    def __init__(self) -> None:
        self.cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, url: str, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """(status, Content-Type, body) of `url`, errors included."""
        request = urllib.request.Request(url, headers=headers or {})
        try:
            with self._opener.open(request, timeout=30) as resp:
                return resp.status, resp.headers["Content-Type"], resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers["Content-Type"], exc.read()


def logged_in(url_with_token: str) -> ViewerClient:
    """A client that opened the URL `reqbench view` printed (so it holds the cookie)."""
    client = ViewerClient()
    status, _, _ = client.get(url_with_token)
    assert status == 200, status
    return client
