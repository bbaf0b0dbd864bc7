"""The run's store quota for recorded model traffic: how many bytes of requests and responses it may keep.

Every row of a run records into the same ``model_calls`` table, each through its own gateway, so the quota
belongs to the table, not to a gateway: `store_quota` gives every recorder of one database file in this
process the same `TrafficQuota`, started from what the table already holds (a resumed run keeps counting).
A gateway reserves a request's size before forwarding it (`reserve`), and settles with the bytes actually
written (`settle`); a call that does not fit is refused and its row ends with ``resource_limit``. Records
are written whole, so the quota can be passed by at most the responses of the calls in flight.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class TrafficQuota:
    def __init__(self, limit: int, used: int = 0) -> None:
        self.limit, self.used = limit, used
        self._lock = threading.Lock()

    def reserve(self, size: int) -> bool:
        """Hold `size` bytes for a call about to be recorded; False when they do not fit."""
        with self._lock:
            if self.used + size > self.limit:
                return False
            self.used += size
            return True

    def settle(self, reserved: int, written: int) -> None:
        """Replace a reservation by the bytes actually written (0 when nothing was)."""
        with self._lock:
            self.used += written - reserved


_QUOTAS: dict[str, TrafficQuota] = {}
_QUOTAS_LOCK = threading.Lock()


def store_quota(db_path: Path, limit: int) -> TrafficQuota:
    """The quota of the ``model_calls`` table in `db_path` (one object per file and process; a later call
    with another `limit` changes the limit)."""
    key = str(Path(db_path).resolve())
    with _QUOTAS_LOCK:
        quota = _QUOTAS.get(key)
        if quota is None:
            quota = _QUOTAS[key] = TrafficQuota(limit, recorded_bytes(Path(db_path)))
        quota.limit = limit
        return quota


def recorded_bytes(db_path: Path) -> int:
    """Bytes of request and response JSON the table holds (0 without a table)."""
    try:
        conn = sqlite3.connect(db_path, timeout=30.0)
    except sqlite3.Error:
        return 0
    try:
        row = conn.execute("SELECT COALESCE(SUM(LENGTH(CAST(request_json AS BLOB)) + "
                           "LENGTH(CAST(response_json AS BLOB))), 0) FROM model_calls").fetchone()
        return int(row[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()
