"""Each row's store bound for recorded model traffic: how many bytes its calls may add to the run store.

Every model call of a row -- through the gateway (a CLI agent) or the chat client (the built-in ``llm``
agent, an ``llm:`` judge, the simulated user) -- is recorded under the row's key, and what it adds to the
store (its new content-addressed parts, `core.store.blobs`; a conversation's repeated prefix adds nothing)
counts against one `TrafficQuota` per row. `row_quota` gives every recorder of one database file in this
process the same object per row, started from what the row's calls already added (a resumed run keeps
counting). A caller checks `reserve` before it sends a call; recording it (`recorder.Recorder.record`)
charges it at once by an estimate, settled to the bytes it added once the store's writer has written it. A
call that does not fit is refused and its row ends with ``resource_limit`` -- that row alone: the bound is
per row, so one hostile row never cuts off the honest ones. Records are written whole, so a row passes its
bound by at most the calls it has in flight.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from reqbench.core.store.writer import database_key, flush_writes


class TrafficQuota:
    def __init__(self, limit: int, used: int = 0, settle_pending: Callable[[], None] | None = None) -> None:
        self.limit, self.used = limit, used
        self._lock = threading.Lock()
        self._settle_pending = settle_pending
        """Writes the calls still queued for the store, so their estimates become what they added."""

    def reserve(self, size: int) -> bool:
        """Hold `size` bytes for a call about to be recorded; False when they do not fit -- counting the
        row's queued calls by what they added, not by their estimates."""
        for last in (False, True):
            with self._lock:
                if self.used + size <= self.limit:
                    self.used += size
                    return True
            if last or self._settle_pending is None:
                return False
            self._settle_pending()
        return False

    def exhausted(self) -> bool:
        """Whether the row may record nothing more (its queued calls counted by what they added)."""
        if not self.reserve(1):
            return True
        self.settle(1, 0)
        return False

    def settle(self, reserved: int, written: int) -> None:
        """Replace a reservation by the bytes actually written (0 when nothing was)."""
        with self._lock:
            self.used += written - reserved


_QUOTAS: dict[tuple[str, str], TrafficQuota] = {}
_QUOTAS_LOCK = threading.Lock()


def row_quota(db_path: Path, row_key: str, limit: int) -> TrafficQuota:
    """The store bound of `row_key` in `db_path` (one object per file, row and process; a later call with
    another `limit` changes the limit)."""
    key = (database_key(str(db_path)), row_key)
    with _QUOTAS_LOCK:
        quota = _QUOTAS.get(key)
    if quota is None:  # read outside the lock: the other rows' calls never wait on this row's first one
        used = recorded_bytes(Path(db_path), row_key)
        with _QUOTAS_LOCK:
            quota = _QUOTAS.setdefault(key, TrafficQuota(limit, used, partial(flush_writes, db_path, check=False)))
    quota.limit = limit
    return quota


def recorded_bytes(db_path: Path, row_key: str) -> int:
    """Bytes the row's recorded calls added to the store (a call from before parts: its JSON text), this
    process's queued calls included (written first)."""
    flush_writes(db_path, check=False)
    try:
        conn = sqlite3.connect(db_path, timeout=30.0)
    except sqlite3.Error:
        return 0
    try:
        row = conn.execute("SELECT COALESCE(SUM(CASE WHEN packed THEN stored_bytes ELSE "
                           "LENGTH(CAST(request_json AS BLOB)) + LENGTH(CAST(response_json AS BLOB)) END), 0) "
                           "FROM model_calls WHERE row_key = ?", (row_key,)).fetchone()
        return int(row[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()
