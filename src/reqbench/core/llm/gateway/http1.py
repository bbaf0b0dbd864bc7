"""The gateway's HTTP/1.1 server side, lean: a request's line and headers read, an answer written in one send.

`http.server.BaseHTTPRequestHandler` parses every request's headers with the `email` package (a feed parser,
a policy object, a message of them) and writes an answer in two system calls; at hundreds of calls a second
that was a large part of the gateway's CPU. `LeanHandler` reads the same things under the same strict limits
and answers the same bytes:

- the request line up to 65,536 bytes (over it: 414), ``METHOD TARGET HTTP/x.y`` (else 400; HTTP/2 and
  later: 505; two words: an HTTP/0.9 ``GET``, answered without a head and closed), ``//`` at the start of the
  target reduced to one ``/``;
- at most 100 header lines of at most 65,536 bytes each (over either: 431), read up to the empty line;
  fields as `email` reads them (a folded line continues the field before it, a line that is no field ends
  the fields), names lower-cased, the last of a repeated name kept;
- the connection kept alive as `http.server` keeps it (HTTP/1.1 unless ``Connection: close``; HTTP/1.0
  with ``Connection: keep-alive``), ``Expect: 100-continue`` answered with ``100 Continue``, a method the
  handler has no ``do_`` for answered 501, every error page `http.server`'s own;
- an answer's status line, ``Server``, ``Date``, the handler's headers and the body in one buffer.

A socket timeout (`timeout`: a client stalling mid-request) closes the connection. Logging is off.
"""

from __future__ import annotations

import html
import re
import socket
import socketserver
import time
from collections.abc import Iterator
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler

MAX_LINE = 65536
"""Longest request or header line, bytes (as `http.server` and `http.client`)."""
MAX_HEADERS = 100
"""Most header lines of one request (as `http.client`)."""
SERVER = f"{BaseHTTPRequestHandler.server_version} {BaseHTTPRequestHandler.sys_version}"
RESPONSES = BaseHTTPRequestHandler.responses
ERROR_PAGE = BaseHTTPRequestHandler.error_message_format
ERROR_TYPE = BaseHTTPRequestHandler.error_content_type
_FIELD = re.compile(r"[\041-\071\073-\176]*:")
"""A field's name and colon, as `email`'s header pattern accepts them."""
_BREAK = re.compile(r"(\r\n|\r|\n)")


class LeanHandler(socketserver.StreamRequestHandler):
    """One agent connection: requests read one after another, each given to ``do_<METHOD>``."""

    command = ""
    path = ""
    request_version = "HTTP/0.9"
    headers: dict[str, str]
    close_connection = True

    def setup(self) -> None:
        super().setup()
        if self.connection.family in (socket.AF_INET, socket.AF_INET6):  # a head and its body leave at once,
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # never 40 ms apart

    def handle(self) -> None:
        self.close_connection = True
        self._one_request()
        while not self.close_connection:
            self._one_request()

    def _one_request(self) -> None:
        try:
            line = self.rfile.readline(MAX_LINE + 1)
            self.command, self.request_version = "", "HTTP/0.9"
            if len(line) > MAX_LINE:
                self.request_version = ""  # `http.server` answers this one with a head
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                return
            if not line:
                self.close_connection = True
                return
            if not self._read_head(line):
                return
            method = getattr(self, "do_" + self.command, None)
            if method is None:
                self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")
                return
            method()
        except TimeoutError:  # a read or a write timed out: the connection is dropped
            self.close_connection = True

    def _read_head(self, raw: bytes) -> bool:
        """Parse the request line `raw` and read the headers; False once an error was answered."""
        self.close_connection = True
        requestline = raw.decode("iso-8859-1").rstrip("\r\n")
        words = requestline.split()
        if not words:
            return False
        if len(words) >= 3:
            version = words[-1]
            number = _version(version)
            if number is None:
                self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request version ({version!r})")
                return False
            if number >= (1, 1):
                self.close_connection = False
            if number >= (2, 0):
                self.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED,
                                f"Invalid HTTP version ({version.split('/', 1)[1]})")
                return False
            self.request_version = version
        if not 2 <= len(words) <= 3:
            self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request syntax ({requestline!r})")
            return False
        command, path = words[:2]
        if len(words) == 2:
            self.close_connection = True
            if command != "GET":
                self.send_error(HTTPStatus.BAD_REQUEST, f"Bad HTTP/0.9 request type ({command!r})")
                return False
        self.command = command
        self.path = "/" + path.lstrip("/") if path.startswith("//") else path
        lines: list[bytes] = []
        while True:
            line = self.rfile.readline(MAX_LINE + 1)
            if len(line) > MAX_LINE:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long",
                                f"got more than {MAX_LINE} bytes when reading header line")
                return False
            lines.append(line)
            if len(lines) > MAX_HEADERS:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers",
                                f"got more than {MAX_HEADERS} headers")
                return False
            if line in (b"\r\n", b"\n", b""):
                break
        self.headers = header_fields(lines)
        connection = self.headers.get("connection", "").lower()
        if connection == "close":
            self.close_connection = True
        elif connection == "keep-alive":
            self.close_connection = False
        if self.headers.get("expect", "").lower() == "100-continue" and self.request_version >= "HTTP/1.1":
            self.send(HTTPStatus.CONTINUE, [], b"", standard=False)
        return True

    # -- answers -------------------------------------------------------------------------------------

    def send(self, status: int, headers: list[tuple[str, str]], body: bytes, *, message: str | None = None,
             standard: bool = True) -> None:
        """Write one answer: status line, ``Server`` and ``Date`` (when `standard`), `headers`, `body`, in one
        send. A ``Connection: close`` header closes the connection after it (as `http.server` did)."""
        for name, value in headers:
            if name.lower() == "connection":
                if value.lower() == "close":
                    self.close_connection = True
                elif value.lower() == "keep-alive":
                    self.close_connection = False
        if self.request_version == "HTTP/0.9":  # no head at all
            self._write(body)
            return
        if message is None:
            message = RESPONSES[status][0] if status in RESPONSES else ""
        head = [f"HTTP/1.1 {status} {message}\r\n"]
        if standard:
            head.append(f"Server: {SERVER}\r\nDate: {_http_date()}\r\n")
        head.extend(f"{name}: {value}\r\n" for name, value in headers)
        head.append("\r\n")
        self._write("".join(head).encode("latin-1", "strict") + body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """`http.server`'s error answer: its HTML page (none for 204, 205, 304 and HEAD), then close."""
        short, long = RESPONSES.get(HTTPStatus(code), ("???", "???"))
        message = short if message is None else message
        explain = long if explain is None else explain
        headers = [("Connection", "close")]
        body = b""
        if code >= 200 and code not in (HTTPStatus.NO_CONTENT, HTTPStatus.RESET_CONTENT, HTTPStatus.NOT_MODIFIED):
            body = (ERROR_PAGE % {"code": code, "message": html.escape(message, quote=False),
                                             "explain": html.escape(explain, quote=False)}).encode("UTF-8", "replace")
            headers += [("Content-Type", ERROR_TYPE), ("Content-Length", str(len(body)))]
        self.send(code, headers, b"" if self.command == "HEAD" else body, message=message)

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def header_fields(lines: list[bytes]) -> dict[str, str]:
    """The header fields of `lines` (each with its line end, the empty line last), names lower-cased, as
    `email` (compat32) reads them: a lone CR also ends a line, a line starting with a space or tab continues
    the field before it (kept with its line break), an empty line or one that is no ``name:`` field ends the
    fields, a field with an empty name or a Unix ``From `` line is skipped; the last of a repeated name wins."""
    fields: dict[str, str] = {}
    name: str | None = None
    value = ""
    for line in _lines(lines):
        if line in ("\r\n", "\n", "\r", ""):
            break
        if line[0] in " \t":
            if name is not None:
                value += line
            continue
        if name is not None:
            fields[name] = value.rstrip("\r\n")
            name = None
        if not _FIELD.match(line):
            if line.startswith("From "):
                continue
            break  # not a field: `email` takes it (and everything after it) for the body
        colon = line.index(":")
        if colon == 0:
            continue
        name, value = line[:colon].lower(), line[colon + 1:].lstrip(" \t")
    if name is not None:
        fields[name] = value.rstrip("\r\n")
    return fields


def _lines(lines: list[bytes]) -> Iterator[str]:
    """`lines` decoded, a line holding a lone CR split after it (as `email` splits them)."""
    for raw in lines:
        line = raw.decode("iso-8859-1")
        if "\r" not in line[:-2]:
            yield line
            continue
        pieces = _BREAK.split(line)  # text, break, text, break, ..., text
        for i in range(0, len(pieces) - 1, 2):
            yield pieces[i] + pieces[i + 1]
        if pieces[-1]:
            yield pieces[-1]


def _version(text: str) -> tuple[int, int] | None:
    """``HTTP/x.y`` as (x, y), or None when it is not one (`http.server`'s rule: two parts of digits)."""
    if not text.startswith("HTTP/"):
        return None
    parts = text.split("/", 1)[1].split(".")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 10 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


_DATE: list[tuple[int, str]] = [(0, "")]


def _http_date() -> str:
    """The ``Date`` header's value, formatted once a second."""
    now = int(time.time())
    second, text = _DATE[0]
    if second != now:
        text = formatdate(now, usegmt=True)
        _DATE[0] = (now, text)
    return text
