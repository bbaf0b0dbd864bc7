"""How much of a hostile agent's traffic the gateway reads, parses and keeps: sizes, and bodies read safely.

The agent decides what it sends, so every size is bounded by the harness, not by the agent:

=============================  ============================================  ===============================
bound                          default (environment override)                what happens over it
=============================  ============================================  ===============================
request body                   32 MiB (``REQBENCH_GATEWAY_MAX_BODY``)        HTTP 413, read no further
JSON items of one body         1,000,000 ``[`` ``{`` ``,`` ``:`` bytes       HTTP 413 before parsing
stored model traffic / row     256 MiB (``REQBENCH_ROW_STORE_BYTES``)        refused, row ``resource_limit``
refused/failed calls / row     64 recorded (later ones are only counted)     counted in the row's usage
=============================  ============================================  ===============================

The body is read only after the token was matched to a lease (`server`), by its ``Content-Length`` (a
declared length over the cap is refused before a byte of the body is read) or, for ``Transfer-Encoding:
chunked``, chunk by chunk, refusing as soon as the announced chunks would pass the cap -- so the gateway never
holds more than the cap of one request. A refused call is recorded as its size, the SHA-256 of what was read
and its first KiB (`refused_digest`), never the body; so is a call the provider refused or failed (its 4xx/5xx
answer kept whole only up to 4 KiB, `kept_answer`). Sizes take ``K``/``M``/``G`` suffixes (binary units).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reqbench.core.sandbox.limits import parse_size

MAX_BODY_ENV = "REQBENCH_GATEWAY_MAX_BODY"
ROW_STORE_ENV = "REQBENCH_ROW_STORE_BYTES"
RETIRED_ENV = {"REQBENCH_GATEWAY_STORE_QUOTA": ROW_STORE_ENV}
"""Settings no longer read -> the one that replaced them. Setting one is said once per process (`from_env`),
never silently ignored: the run's 1 GiB store quota became a bound per row."""
DEFAULT_MAX_BODY = 32 * 1024**2
"""The largest request body the gateway reads (the providers' own request limit is of this order)."""
DEFAULT_ROW_STORE_BYTES = 256 * 1024**2
"""Bytes one row's model calls may add to the run store (new content-addressed parts, compressed; a
conversation's repeated prefix adds nothing: `core.store.blobs`), whoever makes them (gateway, built-in agent,
judge, simulated user). Scaled to an honest row of the papers' budgets: at most ~2,000 calls (PACE: 200
iterations; SWE-Journey: 250 steps per user turn over a session of a few turns), each adding at most one
answer (a 32,768-token output cap, ~128 KiB of text) and one tool observation -- under 128 KiB compressed per
call, 250 MiB per row."""
DEFAULT_MAX_JSON_ITEMS = 1_000_000
"""Structural bytes (``[ { , :``) one body may hold: bounds what parsing can allocate (a 32 MiB body of empty
lists would otherwise become hundreds of MB of Python objects). Brackets inside strings count too, so the
bound errs on the side of refusing; real requests stay far below it."""
HEAD_BYTES = 1024
"""How much of a refused request is kept (its first KiB)."""
KEPT_ANSWER_BYTES = 4096
"""The largest answer to a refused or failed call kept whole (providers' error bodies are far smaller)."""
REFUSED_RECORDS_PER_ROW = 64
CHUNK_LINE_MAX = 1024
"""Longest chunk-size line (with extensions) accepted in a chunked body."""


@dataclass(frozen=True)
class GatewayLimits:
    max_body: int = DEFAULT_MAX_BODY
    row_store_bytes: int = DEFAULT_ROW_STORE_BYTES
    max_json_items: int = DEFAULT_MAX_JSON_ITEMS
    refused_records_per_row: int = REFUSED_RECORDS_PER_ROW

    @classmethod
    def from_env(cls) -> GatewayLimits:
        """The defaults, with ``$REQBENCH_GATEWAY_MAX_BODY`` / ``$REQBENCH_ROW_STORE_BYTES`` applied (a retired
        setting that is set is noted once: `retired_settings_notice`)."""
        _note_retired_settings()
        sizes = {}
        for name, env in (("max_body", MAX_BODY_ENV), ("row_store_bytes", ROW_STORE_ENV)):
            text = os.environ.get(env, "").strip()
            if text:
                sizes[name] = parse_size(text, item=f"${env}")
        return cls(**sizes)


def retired_settings_notice(environ: Mapping[str, str]) -> str | None:
    """One sentence naming each retired setting set in `environ` and what replaced it, or None."""
    retired = [(old, new) for old, new in RETIRED_ENV.items() if environ.get(old, "").strip()]
    if not retired:
        return None
    return "reqbench: " + "; ".join(
        f"${old} is no longer read: the store bound for recorded model traffic is per row now -- set ${new} "
        f"(default {DEFAULT_ROW_STORE_BYTES // 1024**2} MiB per row) instead" for old, new in retired)


_NOTED: list[bool] = []
_NOTED_LOCK = threading.Lock()


def _note_retired_settings() -> None:
    """Say `retired_settings_notice` on stderr, once per process."""
    if _NOTED:
        return
    with _NOTED_LOCK:
        if _NOTED:
            return
        _NOTED.append(True)
        notice = retired_settings_notice(os.environ)
    if notice is not None:
        print(notice, file=sys.stderr, flush=True)


class Reader(Protocol):
    def read(self, size: int, /) -> bytes: ...

    def readline(self, size: int, /) -> bytes: ...


class BadBody(Exception):
    """The body is malformed at the HTTP level (a broken length or chunk line): HTTP 400."""


class BodyTooLarge(Exception):
    """The body is larger than the cap: `head` is what was read of it, `size` its declared size (or, for a
    chunked body, the bytes announced so far: a lower bound)."""

    def __init__(self, head: bytes, size: int, cap: int) -> None:
        super().__init__(f"request body of {size} bytes or more is over the gateway's limit of {cap} bytes")
        self.head, self.size, self.cap = head, size, cap


def read_body(rfile: Reader, headers: dict[str, str], cap: int) -> bytes:
    """The request body (at most `cap` bytes are ever held); `BodyTooLarge` or `BadBody` otherwise."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return _read_chunked(rfile, cap)
    text = headers.get("content-length", "").strip()
    if not text:
        return b""
    if not text.isdigit():
        raise BadBody(f"Content-Length {text[:40]!r} is not a length")
    length = int(text)
    if length > cap:
        raise BodyTooLarge(rfile.read(min(HEAD_BYTES, length)), length, cap)
    data = rfile.read(length)
    if len(data) < length:
        raise BadBody(f"the body ended after {len(data)} of {length} bytes")
    return data


def _read_chunked(rfile: Reader, cap: int) -> bytes:
    body = bytearray()
    while True:
        line = rfile.readline(CHUNK_LINE_MAX + 1)
        if len(line) > CHUNK_LINE_MAX or not line.endswith(b"\n"):
            raise BadBody("a chunk-size line is missing or too long")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise BadBody(f"bad chunk size {line[:40]!r}") from None
        if size < 0:
            raise BadBody("negative chunk size")
        if size == 0:
            _skip_trailers(rfile)
            return bytes(body)
        if len(body) + size > cap:
            head = bytes(body[:HEAD_BYTES]) if body else rfile.read(min(HEAD_BYTES, size))
            raise BodyTooLarge(head, len(body) + size, cap)
        chunk = rfile.read(size)
        if len(chunk) < size or rfile.readline(CHUNK_LINE_MAX + 1).strip():
            raise BadBody("a chunk is shorter than announced")
        body += chunk


def _skip_trailers(rfile: Reader) -> None:
    for _ in range(64):
        line = rfile.readline(CHUNK_LINE_MAX + 1)
        if not line.strip():
            return
    raise BadBody("too many trailer lines")


def json_items(raw: bytes) -> int:
    """Upper bound of the values a JSON text holds (its structural bytes, strings included)."""
    return raw.count(b"[") + raw.count(b"{") + raw.count(b",") + raw.count(b":")


def refused_digest(raw: bytes, size: int | None = None) -> dict[str, Any]:
    """What is kept of a refused or failed request: its size, the SHA-256 of the `raw` bytes read and their
    first KiB."""
    return {"reqbench_refused_request": _digest(raw, size)}


def kept_answer(response: dict[str, Any]) -> dict[str, Any]:
    """What is kept of the answer to a refused or failed call: the answer itself up to `KEPT_ANSWER_BYTES`
    of JSON (an error body), else its digest (a provider that echoes the request back)."""
    raw = json.dumps(response, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return response if len(raw) <= KEPT_ANSWER_BYTES else {"reqbench_failed_answer": _digest(raw)}


def _digest(raw: bytes, size: int | None = None) -> dict[str, Any]:
    return {"bytes": len(raw) if size is None else size, "sha256": hashlib.sha256(raw).hexdigest(),
            "sha256_of_bytes": len(raw), "head": raw[:HEAD_BYTES].decode("utf-8", "replace")}
