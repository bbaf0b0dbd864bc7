"""Model and judge calls of a run: the record/replay cache (table ``cache``) and the judge-call log
(table ``judge_calls``), both stored as content-addressed parts.

A recorded answer is what makes a run replayable: resuming, re-grading or re-running a row of the run
replays it instead of asking the model again (`core.llm.cache` adapts this to the chat client's
two-method cache contract). The first recorded value for a key wins. A value is stored as content-addressed
parts (`store.blobs`, ``packed`` = 1), shared with the model-call log: a request the cache and
``model_calls`` both hold is stored once; so are judge calls' requests and responses (many calls sharing a
long system prompt store it once). Rows written before (``packed`` = 0) are read as JSON text.
"""

from __future__ import annotations

import json
import sqlite3
from functools import partial
from pathlib import Path
from typing import Any

from reqbench.core.store.blobs import Parts
from reqbench.core.store.connection import StoreConnection, utc_now
from reqbench.core.store.models import JudgeCall
from reqbench.core.store.writer import writer_for


class CallRecords(StoreConnection):
    """The cache and judge-call tables of one run database (file `db_path`)."""

    db_path: Path

    def get_cached(self, kind: str, key: str) -> Any | None:
        """The cached value for `(kind, key)` (e.g. ``("judge", request_hash)``), or None."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM cache WHERE kind = ? AND key = ?", (kind, key)).fetchone()
            return None if row is None else _value(Parts(self._conn), row)

    def put_cached(self, kind: str, key: str, value: Any) -> None:
        """Record `value` under `(kind, key)`, durable when this returns. The first recorded value wins, so
        a replay never changes what a re-scored run sees. Written by the store's group-commit writer
        (`store.writer`): puts from many rows at once share a transaction instead of queueing on the store's
        lock for a commit each."""
        writer_for(self.db_path).run(partial(_put, kind, key, value))

    def cached_items(self, kind: str) -> dict[str, Any]:
        """Every cached ``{key: value}`` of `kind` (the snapshot a remote row replays from)."""
        with self._lock:
            parts = Parts(self._conn)
            rows = self._conn.execute("SELECT * FROM cache WHERE kind = ?", (kind,)).fetchall()
            return {r["key"]: _value(parts, r) for r in rows}

    def record_judge_call(self, call: JudgeCall) -> None:
        """Record one judge call, its bodies as parts (a prompt prefix many calls share is stored once)."""
        with self._tx() as conn:
            parts = Parts(conn)
            conn.execute("INSERT INTO judge_calls (request_key, judge_id, contract, request_json, "
                         "response_json, started, finished, packed) VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
                         (call.request_key, call.judge_id, call.contract, parts.pack(call.request),
                          parts.pack(call.response), call.started, call.finished))

    def judge_calls(self, request_key: str | None = None) -> list[JudgeCall]:
        where, params = ("WHERE request_key = ?", (request_key,)) if request_key else ("", ())
        with self._lock:
            parts = Parts(self._conn)
            rows = self._conn.execute(f"SELECT * FROM judge_calls {where} ORDER BY id", params).fetchall()
            return [JudgeCall(request_key=r["request_key"], judge_id=r["judge_id"], contract=r["contract"],
                              request=_body(parts, r, "request_json"), response=_body(parts, r, "response_json"),
                              started=r["started"], finished=r["finished"]) for r in rows]


def _put(kind: str, key: str, value: Any, conn: sqlite3.Connection) -> None:
    if conn.execute("SELECT 1 FROM cache WHERE kind = ? AND key = ?", (kind, key)).fetchone() is None:
        conn.execute("INSERT INTO cache (kind, key, value_json, created, packed) VALUES (?, ?, ?, ?, 1)",
                     (kind, key, Parts(conn).pack(value), utc_now()))


def _value(parts: Parts, row: Any) -> Any:
    """A cache row's value (`_body`)."""
    return _body(parts, row, "value_json")


def _body(parts: Parts, row: Any, column: str) -> Any:
    """A JSON column of a cache or judge-call row: its parts (``packed``), else its JSON text (a row written
    before parts). The one place a stored body is read back."""
    packed = row["packed"] if "packed" in row.keys() else 0
    return parts.unpack(row[column]) if packed else json.loads(row[column])
