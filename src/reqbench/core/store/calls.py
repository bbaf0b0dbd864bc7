"""Model and judge calls of a run: the record/replay cache (table ``cache``) and the judge-call log
(table ``judge_calls``).

A recorded answer is what makes a run replayable: resuming, re-grading or re-running a row of the run
replays it instead of asking the model again (`core.llm.cache` adapts this to the chat client's
two-method cache contract). The first recorded value for a key wins.
"""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.store.connection import StoreConnection, utc_now
from reqbench.core.store.models import JudgeCall


class CallRecords(StoreConnection):
    """The cache and judge-call tables of one run database."""

    def get_cached(self, kind: str, key: str) -> Any | None:
        """The cached value for `(kind, key)` (e.g. ``("judge", request_hash)``), or None."""
        rows = self._query("SELECT value_json FROM cache WHERE kind = ? AND key = ?", (kind, key))
        return json.loads(rows[0]["value_json"]) if rows else None

    def put_cached(self, kind: str, key: str, value: Any) -> None:
        """Record `value` under `(kind, key)`. The first recorded value wins, so a replay never changes
        what a re-scored run sees."""
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO cache VALUES (?, ?, ?, ?)", (kind, key, text, utc_now()))

    def cached_items(self, kind: str) -> dict[str, Any]:
        """Every cached ``{key: value}`` of `kind` (the snapshot a remote row replays from)."""
        rows = self._query("SELECT key, value_json FROM cache WHERE kind = ?", (kind,))
        return {r["key"]: json.loads(r["value_json"]) for r in rows}

    def record_judge_call(self, call: JudgeCall) -> None:
        with self._tx() as conn:
            conn.execute("INSERT INTO judge_calls (request_key, judge_id, contract, request_json, "
                         "response_json, started, finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (call.request_key, call.judge_id, call.contract,
                          json.dumps(call.request, sort_keys=True, ensure_ascii=False),
                          json.dumps(call.response, sort_keys=True, ensure_ascii=False),
                          call.started, call.finished))

    def judge_calls(self, request_key: str | None = None) -> list[JudgeCall]:
        where, params = ("WHERE request_key = ?", (request_key,)) if request_key else ("", ())
        return [JudgeCall(request_key=r["request_key"], judge_id=r["judge_id"], contract=r["contract"],
                          request=json.loads(r["request_json"]), response=json.loads(r["response_json"]),
                          started=r["started"], finished=r["finished"])
                for r in self._query(f"SELECT * FROM judge_calls {where} ORDER BY id", params)]

