"""Record/replay cache for model calls: request content address -> recorded response.

The contract is two methods, so the run store (which offers ``get_cached``/``put_cached`` on its own
SQLite file) can serve as the cache of a run and re-scoring never re-asks a model:

* ``get_cached(key) -> value | None``
* ``put_cached(key, value) -> None``

A store whose methods take a namespace first (``get_cached(kind, key)`` / ``put_cached(kind, key,
value)``, as the run store's do) is adapted by `as_response_cache`, which scopes it to ``kind="llm"``.

A value is a JSON-serialisable dict ``{"request": ..., "response": ..., "recorded": ts}``. Values are
written once: a second `put_cached` for a key keeps the first record (the first answer is the one
every later replay must see). Two implementations here: `SqliteResponseCache` (a file, shared by
processes, WAL mode) and `MemoryResponseCache` (one process; the default when no file is configured).
"""

from __future__ import annotations

import inspect
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ResponseCache(Protocol):
    def get_cached(self, key: str) -> Any | None: ...

    def put_cached(self, key: str, value: Any) -> None: ...


class MemoryResponseCache:
    """A dict; lives as long as the process."""

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get_cached(self, key: str) -> Any | None:
        with self._lock:
            return self._data.get(key)

    def put_cached(self, key: str, value: Any) -> None:
        with self._lock:
            self._data.setdefault(key, value)

    def __len__(self) -> int:
        return len(self._data)


class SqliteResponseCache:
    """A SQLite file ``responses(key PRIMARY KEY, value JSON, created)``; safe across threads/processes.

    Each operation opens its own short connection (SQLite connections are not shared across threads),
    and every write is one transaction with ``INSERT OR IGNORE`` so the first record wins.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = self._connect()
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            with conn:
                conn.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
                             "value TEXT NOT NULL, created REAL NOT NULL)")
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30.0)

    def get_cached(self, key: str) -> Any | None:
        conn = self._connect()
        try:
            row = conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        finally:
            conn.close()
        return None if row is None else json.loads(row[0])

    def put_cached(self, key: str, value: Any) -> None:
        conn = self._connect()
        try:
            with conn:
                conn.execute("INSERT OR IGNORE INTO responses (key, value, created) VALUES (?, ?, ?)",
                             (key, json.dumps(value, ensure_ascii=False, sort_keys=True), time.time()))
        finally:
            conn.close()

    def __len__(self) -> int:
        conn = self._connect()
        try:
            return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        finally:
            conn.close()


class KindScopedCache:
    """Adapts a ``get_cached(kind, key)`` / ``put_cached(kind, key, value)`` store to one `kind`."""

    def __init__(self, store: Any, kind: str = "llm") -> None:
        self.store, self.kind = store, kind

    def get_cached(self, key: str) -> Any | None:
        return self.store.get_cached(self.kind, key)

    def put_cached(self, key: str, value: Any) -> None:
        self.store.put_cached(self.kind, key, value)


def as_response_cache(obj: Any, kind: str = "llm") -> ResponseCache:
    """`obj` as a `ResponseCache`: used as is, or scoped to `kind` when its methods take a namespace."""
    try:
        params = [p for p in inspect.signature(obj.get_cached).parameters.values()
                  if p.default is inspect.Parameter.empty
                  and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return obj  # type: ignore[no-any-return]
    return KindScopedCache(obj, kind) if len(params) >= 2 else obj
