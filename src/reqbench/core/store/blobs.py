"""Content-addressed parts of recorded model traffic: every distinct part of a request or answer stored once.

Each model request repeats the conversation so far, so storing bodies whole makes a run store grow with the
square of a conversation (60 turns of ~5.5 KB: 10 MB of requests, kept twice). Here a value is stored as its
*parts*: a list becomes a chain of its items, a large dict its fields, a large string one compressed part;
each part is addressed by the SHA-256 of its canonical JSON and stored once, zlib-compressed, in ``blobs``.
A list is a chain of cells in ``blob_lists`` (``sha256(prev | item)``), so a conversation that grew by two
messages adds two cells and two message parts: a store grows linearly with the new content of each call.

What a column holds for a packed value is its *form* (JSON), the value's shape down to its parts:

* ``["v", value]`` -- the value itself (at most `INLINE` bytes of JSON);
* ``["b", sha256]`` -- one part, whose stored text is again a form;
* ``["l", sha256, n]`` -- a list of `n` items, the head cell of its chain (each item a part); only a list
  whose items average `INLINE` bytes or more (a list of many tiny values is one part: no cell per value);
* ``["d", {key: form}]`` -- a dict, field by field.

`Parts.pack` writes the parts of a value (inside the caller's transaction) and returns its form and the
bytes it added; `Parts.unpack` rebuilds the value. The record/replay cache (`store.calls`) and the model-call
log (`core.llm.gateway.recorder`) pack into the same tables, so a request both record is stored once.
Nesting deeper than `MAX_DEPTH` is kept as one part, so a hostile body cannot make packing recurse.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from typing import Any

BLOBS_DDL = """
CREATE TABLE IF NOT EXISTS blobs (
  sha256 TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS blob_lists (
  sha256 TEXT PRIMARY KEY,
  prev TEXT NOT NULL,
  item TEXT NOT NULL
) WITHOUT ROWID
"""
"""``blobs``: one compressed part (``size``: bytes of its JSON text); ``blob_lists``: one cell of a list chain
(``prev``: the cell before it, empty for the first; ``item``: the part it holds)."""

INLINE = 256
"""Largest JSON text (bytes) kept inside its parent's form rather than as a part of its own."""
MAX_DEPTH = 8
"""Below this depth a value is one part, whatever its shape."""
ROW_OVERHEAD = 96
"""Bytes counted for each new row besides its data (key, header, index entry): what `pack` reports."""
_CHAIN = """
WITH RECURSIVE chain(sha256, prev, item, depth) AS (
  SELECT sha256, prev, item, 0 FROM blob_lists WHERE sha256 = ?
  UNION ALL SELECT b.sha256, b.prev, b.item, c.depth + 1 FROM blob_lists b JOIN chain c ON b.sha256 = c.prev
) SELECT item FROM chain ORDER BY depth DESC
"""


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class Parts:
    """The parts tables of one open connection. `pack` must run inside a write transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.added = 0
        """Bytes this object's `pack` calls added to the store (parts and list cells that were new)."""
        self._texts: dict[str, str] = {}

    # -- writing -----------------------------------------------------------------------------------
    def pack(self, value: Any) -> str:
        """Store the parts of `value`; the JSON text of its form."""
        return _text(self._form(value, 0))

    def _form(self, value: Any, depth: int) -> list[Any]:
        text = _text(value)
        if len(text) <= INLINE:
            return ["v", value]
        if depth >= MAX_DEPTH:
            return ["b", self._part(_text(["v", value]))]
        if isinstance(value, list) and len(value) * INLINE <= len(text):  # items of INLINE bytes on average
            return ["l", self._chain([self._part(_text(self._form(item, depth + 1))) for item in value]),
                    len(value)]
        if isinstance(value, dict):
            return ["d", {key: self._form(item, depth + 1) for key, item in value.items()}]
        return ["b", self._part(_text(["v", value]))]

    def _part(self, form_text: str) -> str:
        raw = _bytes(form_text)
        digest = hashlib.sha256(raw).hexdigest()
        if self.conn.execute("SELECT 1 FROM blobs WHERE sha256 = ?", (digest,)).fetchone() is None:
            data = zlib.compress(raw, 6)
            if self.conn.execute("INSERT OR IGNORE INTO blobs (sha256, size, data) VALUES (?, ?, ?)",
                                 (digest, len(raw), data)).rowcount:
                self.added += len(data) + ROW_OVERHEAD
        return digest

    def _chain(self, items: list[str]) -> str:
        cells, prev = [], ""
        for item in items:
            prev = hashlib.sha256(f"{prev}|{item}".encode()).hexdigest()
            cells.append(prev)
        for index in range(len(cells) - 1, -1, -1):  # newest first: stop at the longest stored prefix
            if self.conn.execute("SELECT 1 FROM blob_lists WHERE sha256 = ?", (cells[index],)).fetchone():
                break
            self.conn.execute("INSERT OR IGNORE INTO blob_lists (sha256, prev, item) VALUES (?, ?, ?)",
                              (cells[index], cells[index - 1] if index else "", items[index]))
            self.added += ROW_OVERHEAD + 64
        return cells[-1] if cells else ""

    # -- reading -----------------------------------------------------------------------------------
    def unpack(self, form_text: str) -> Any:
        """The value whose form `pack` returned."""
        return self._value(json.loads(form_text))

    def _value(self, form: list[Any]) -> Any:
        tag = form[0]
        if tag == "v":
            return form[1]
        if tag == "b":
            return self._value(json.loads(self._stored(form[1])))
        if tag == "d":
            return {key: self._value(item) for key, item in form[1].items()}
        if tag == "l":
            items = [row[0] for row in self.conn.execute(_CHAIN, (form[1],))] if form[2] else []
            if len(items) != form[2]:
                raise ValueError(f"list {form[1][:16]} of {form[2]} items has {len(items)} in the store")
            return [self._value(json.loads(self._stored(item))) for item in items]
        raise ValueError(f"unknown part form {tag!r}")

    def _stored(self, digest: str) -> str:
        """The form text of part `digest` (kept for this object's lifetime: a conversation repeats parts)."""
        text = self._texts.get(digest)
        if text is None:
            row = self.conn.execute("SELECT data FROM blobs WHERE sha256 = ?", (digest,)).fetchone()
            if row is None:
                raise ValueError(f"part {digest[:16]} is missing from the store")
            text = self._texts[digest] = zlib.decompress(row[0]).decode("utf-8", "surrogatepass")
        return text
