"""One HTTP/1.1 exchange with the provider on an open socket, as `http.client` has it but without its cost.

`http.client` builds a request header by header and parses every answer's headers with the `email` package;
for one POST of a JSON body and one answer that was most of the forwarder's CPU. Here a request is one
buffer (`request_bytes`: ``Host``, ``Content-Length`` and the given headers in `http.client`'s order, names
and values refused by its rules -- no header can be smuggled into another), and an answer is read by
`read_head` and `body_pieces` under `http.client`'s limits: a status line, header line or chunk-size line of
at most 65,536 bytes, at most 100 header lines, ``100 Continue`` heads skipped, the body by
``Transfer-Encoding: chunked``, by ``Content-Length`` or up to the connection's close. Failures raise
`http.client`'s own exceptions (``RemoteDisconnected`` for a connection closed before a status line,
``BadStatusLine``, ``LineTooLong``, ``IncompleteRead``), so callers tell them apart as before. How much of a
body is held and for how long is the caller's (`provider_wire`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from http.client import BadStatusLine, HTTPException, IncompleteRead, LineTooLong, RemoteDisconnected
from io import BufferedReader

MAX_LINE = 65536
MAX_HEADERS = 100
_LEGAL_NAME = re.compile(rb"[^:\s][^:\r\n]*").fullmatch
_ILLEGAL_VALUE = re.compile(rb"\n(?![ \t])|\r(?![ \t\n])").search
_ILLEGAL_TARGET = re.compile("[\x00-\x20\x7f]").search


@dataclass(frozen=True)
class Head:
    """An answer's status and what its head says about its body and connection."""

    status: int
    encoding: str
    """``Content-Encoding`` (lower-cased, ``identity`` when absent)."""
    chunked: bool
    length: int | None
    """``Content-Length`` (None: chunked, or up to the close)."""
    will_close: bool
    """The provider closes the connection after this answer (not to be used again)."""


def host_header(host: str, port: int, default_port: int) -> str:
    """The ``Host`` value `http.client` sends: the host (IDNA, IPv6 in brackets), ``:port`` unless default."""
    try:
        name = host.encode("ascii").decode("ascii")
    except UnicodeEncodeError:
        name = host.encode("idna").decode("ascii")
    if ":" in name:
        name = f"[{name}]"
    return name if port == default_port else f"{name}:{port}"


def request_bytes(host: str, target: str, body: bytes, headers: dict[str, str]) -> bytes:
    """A POST of `body` to `target` with `headers`, whole; ValueError for a target, header name or value
    that `http.client` refuses (a line break that would start another header, a space in the target)."""
    if _ILLEGAL_TARGET(target):
        raise ValueError(f"URL can't contain control characters. {target!r}")
    lines = [b"POST " + target.encode("ascii") + b" HTTP/1.1"]
    names = {name.lower() for name in headers}
    if "host" not in names:
        lines.append(b"Host: " + host.encode("ascii"))
    if "content-length" not in names:
        lines.append(b"Content-Length: " + str(len(body)).encode("ascii"))
    for name, value in headers.items():
        raw_name, raw_value = name.encode("ascii"), value.encode("latin-1")
        if not _LEGAL_NAME(raw_name):
            raise ValueError(f"Invalid header name {raw_name!r}")
        if _ILLEGAL_VALUE(raw_value):
            raise ValueError(f"Invalid header value {raw_value!r}")
        lines.append(raw_name + b": " + raw_value)
    lines.append(b"\r\n")
    return b"\r\n".join(lines) + body


def read_head(reader: BufferedReader) -> Head:
    """Read an answer's status line and headers (skipping ``100 Continue`` heads)."""
    while True:
        line = reader.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise LineTooLong("status line")
        if not line:
            raise RemoteDisconnected("Remote end closed connection without response")
        text = line.decode("iso-8859-1")
        words = text.split(None, 2)
        version = words[0] if len(words) >= 2 else ""
        if not version.startswith("HTTP/"):
            raise BadStatusLine(text)
        try:
            status = int(words[1])
        except ValueError:
            raise BadStatusLine(text) from None
        if not 100 <= status <= 999:
            raise BadStatusLine(text)
        fields = _fields(reader)
        if status != 100:
            break
    if version in ("HTTP/1.0", "HTTP/0.9"):
        keep = bool(fields.get("keep-alive")) or any("keep-alive" in fields.get(name, "").lower()
                                                    for name in ("connection", "proxy-connection"))
        will_close = not keep
    elif version.startswith("HTTP/1."):
        will_close = "close" in fields.get("connection", "").lower()
    else:
        raise HTTPException(f"unknown protocol {version!r}")
    chunked = fields.get("transfer-encoding", "").lower() == "chunked"
    length: int | None = None
    if not chunked and fields.get("content-length"):
        try:
            length = int(fields["content-length"])
        except ValueError:
            length = None
        if length is not None and length < 0:
            length = None
    if status in (204, 304) or 100 <= status < 200:
        length = 0
    if not will_close and not chunked and length is None:
        will_close = True
    encoding = (fields.get("content-encoding") or "identity").strip().lower()
    return Head(status, encoding, chunked, length, will_close)


def body_pieces(reader: BufferedReader, head: Head, size: int) -> Iterator[bytes]:
    """The answer's body as it arrives, pieces of at most `size` bytes; read to its end when exhausted."""
    if head.chunked:
        while True:
            line = reader.readline(MAX_LINE + 1)
            if len(line) > MAX_LINE:
                raise LineTooLong("chunk size")
            try:
                left = int(line.split(b";", 1)[0], 16)
            except ValueError:  # not a chunk size: the body ends here, short
                raise IncompleteRead(b"") from None
            if left < 0:
                raise ValueError(f"negative chunk size {line[:40]!r}")
            if left == 0:
                _skip_trailers(reader)
                return
            yield from _exactly(reader, left, size)
            _exactly_all(reader, 2)  # the chunk's CRLF
    elif head.length is not None:
        yield from _exactly(reader, head.length, size)
    else:
        while piece := reader.read1(size):
            yield piece


def _exactly(reader: BufferedReader, length: int, size: int) -> Iterator[bytes]:
    left = length
    while left > 0:
        piece = reader.read1(min(size, left))
        if not piece:
            raise IncompleteRead(b"", left)
        left -= len(piece)
        yield piece


def _exactly_all(reader: BufferedReader, length: int) -> None:
    got = reader.read(length)
    if len(got) < length:
        raise IncompleteRead(got, length - len(got))


def _skip_trailers(reader: BufferedReader) -> None:
    while True:
        line = reader.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise LineTooLong("trailer line")
        if line in (b"\r\n", b"\n", b""):
            return


def _fields(reader: BufferedReader) -> dict[str, str]:
    """The header fields up to the empty line (names lower-cased; the first of a repeated name, as
    `http.client` reads the ones used here), at most `MAX_HEADERS` lines of `MAX_LINE` bytes."""
    fields: dict[str, str] = {}
    count = 0
    while True:
        line = reader.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise LineTooLong("header line")
        count += 1
        if count > MAX_HEADERS:
            raise HTTPException(f"got more than {MAX_HEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            return fields
        name, colon, value = line.decode("iso-8859-1").partition(":")
        if colon:
            fields.setdefault(name.strip().lower(), value.strip())
