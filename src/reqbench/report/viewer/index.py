"""The row index behind the viewer's row table: one in-memory SQLite table per run, built once from the
run store (selected attempt of every planned row plus its flat facts), then paged, sorted and filtered
by SQL so a 10,000-row run pages as fast as a 10-row one."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.runstore import RunStore
from reqbench.report.rowfacts import row_facts

COLUMNS = ("row_key", "task_id", "condition", "agent", "repeat", "status", "outcome", "protocol_outcome", "score",
           "reason", "attempts", "cost_usd", "tokens", "seconds", "started", "finished")
SORTABLE = frozenset(COLUMNS) | {"order_index"}
PAGE_SIZE = 50


@dataclass
class RowPage:
    rows: list[dict[str, Any]]
    total: int
    offset: int
    limit: int


class RowIndex:
    def __init__(self, store: RunStore) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        self._db.execute(f"CREATE TABLE r (order_index INTEGER, {', '.join(COLUMNS)})")
        records = []
        totals = StoreRecorder.for_store(store).totals()
        for i, (row, attempt, n) in enumerate(store.selected_attempts()):
            status = attempt.status.value if attempt else "unstarted"
            facts = row_facts(status, attempt.reason if attempt else "",
                              attempt.result if attempt else ProtocolResult(),
                              attempt.detail if attempt else "", totals.get(row.key))
            records.append((i, row.key, row.task_id, row.condition, row.agent, row.repeat, status,
                            facts["outcome"], facts["protocol_outcome"], facts["score"], facts["reason"], n,
                            facts["cost_usd"], facts["tokens"], facts["seconds"],
                            attempt.started if attempt else None, attempt.finished if attempt else None))
        self._db.executemany(f"INSERT INTO r VALUES ({', '.join('?' * (len(COLUMNS) + 1))})", records)
        for column in ("status", "outcome", "condition"):
            self._db.execute(f"CREATE INDEX r_{column} ON r({column})")

    def page(self, *, status: str = "", outcome: str = "", text: str = "", sort: str = "order_index",
             descending: bool = False, offset: int = 0, limit: int = PAGE_SIZE) -> RowPage:
        where, params = [], []
        if status:
            where.append("status = ?")
            params.append(status)
        if outcome:
            where.append("outcome = ?")
            params.append(outcome)
        if text:
            where.append("(row_key LIKE ? OR reason LIKE ? OR outcome LIKE ? OR protocol_outcome LIKE ?)")
            params += [f"%{text}%"] * 4
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        column = sort if sort in SORTABLE else "order_index"  # never interpolate user text into SQL
        order = f"{column} {'DESC' if descending else 'ASC'} NULLS LAST, order_index"
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) FROM r {clause}", params).fetchone()[0]
            rows = self._db.execute(f"SELECT * FROM r {clause} ORDER BY {order} LIMIT ? OFFSET ?",
                                    [*params, limit, max(0, offset)]).fetchall()
        return RowPage([dict(r) for r in rows], total, offset, limit)

    def totals(self) -> dict[str, Any]:
        """Tokens and cost summed over the rows' selected attempts (None when no row reports them), and the
        first start and last end among them."""
        with self._lock:
            row = self._db.execute("SELECT SUM(tokens), SUM(cost_usd), MIN(started), MAX(finished) FROM r").fetchone()
        return dict(zip(("tokens", "cost_usd", "started", "finished"), tuple(row), strict=True))

    def by_key(self) -> dict[tuple[str, str, int], dict[str, Any]]:
        """Rows keyed by (task, condition, repeat): the pairing used to compare two runs."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM r ORDER BY order_index").fetchall()
        return {(r["task_id"], r["condition"], r["repeat"]): dict(r) for r in rows}

    def distinct(self, column: str) -> list[str]:
        if column not in SORTABLE:
            return []
        with self._lock:
            return [r[0] for r in self._db.execute(
                f"SELECT DISTINCT {column} FROM r WHERE {column} IS NOT NULL ORDER BY 1")]
