"""Where the gateway writes every model call it answers, and where offline replay finds them again.

A `ModelCall` is one agent request and the gateway's answer: the row it belongs to, its step (the
n-th call of that row's lease), the API, request and response bodies, tokens, cost, latency and its
``source`` (``upstream``: forwarded and answered; ``replay``: served from a recording; ``refused``:
over budget, offline miss or upstream failure).

Two recorders share one interface: `StoreRecorder` writes the run store's ``model_calls`` table (its
own short SQLite connections, so the gateway's threads never share the store's connection) and
`MemoryRecorder` keeps calls in a list (outside a run, and in tests).

Replay (`ReplayCursor`) is by row, not by exact body: real agent CLIs put things that change from
run to run into their requests (working directory, dates, session ids), so the n-th call of a row is
answered with the recorded call of that row that matches best and was not used yet -- first an equal
request key, then the same API, model and number of messages, then the same API and model in order.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from reqbench.core.hashing import sha256_json

SOURCES = ("upstream", "replay", "refused")


@dataclass
class ModelCall:
    row_key: str
    step: int
    api: str
    model: str
    request: dict[str, Any]
    response: dict[str, Any]
    status: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0
    source: str = "upstream"
    started: str = ""
    workspace: str = ""
    """The agent's working directory during the call (replay maps it to the new one)."""
    request_key: str = field(default="")

    def __post_init__(self) -> None:
        if not self.request_key:
            self.request_key = request_key(self.api, self.request)

    def to_dict(self) -> dict[str, Any]:
        return {"row_key": self.row_key, "step": self.step, "api": self.api, "model": self.model,
                "request_key": self.request_key, "request": self.request, "response": self.response,
                "status": self.status, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd,
                "latency_ms": self.latency_ms, "source": self.source, "started": self.started,
                "workspace": self.workspace}


def request_key(api: str, body: dict[str, Any]) -> str:
    """Content address of a request (without ``stream``: a streamed and a plain call ask the same)."""
    return sha256_json({"api": api, "body": {k: v for k, v in body.items()
                                             if k not in ("stream", "stream_options")}})


class Recorder(Protocol):
    def record(self, call: ModelCall) -> None: ...

    def calls(self, row_key: str | None = None) -> list[ModelCall]: ...


class MemoryRecorder:
    """Calls in a list; lives as long as the process."""

    def __init__(self) -> None:
        self._calls: list[ModelCall] = []
        self._lock = threading.Lock()

    def record(self, call: ModelCall) -> None:
        with self._lock:
            self._calls.append(call)

    def calls(self, row_key: str | None = None) -> list[ModelCall]:
        with self._lock:
            return [c for c in self._calls if row_key is None or c.row_key == row_key]


class StoreRecorder:
    """The ``model_calls`` table of a run store (``run.sqlite``), one transaction per call."""

    def __init__(self, db_path: Path | str) -> None:
        self.db_path = Path(db_path)

    @classmethod
    def for_store(cls, store: Any) -> StoreRecorder:
        from reqbench.core.store.runstore import DB_NAME

        return cls(Path(store.run_dir) / DB_NAME)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db_path, timeout=30.0)
        conn.row_factory = sqlite3.Row
        return conn

    def record(self, call: ModelCall) -> None:
        conn = self._connect()
        try:
            with conn:
                conn.execute(
                    "INSERT INTO model_calls (row_key, step, api, model, request_key, request_json, "
                    "response_json, status, prompt_tokens, completion_tokens, cost_usd, latency_ms, source, "
                    "workspace, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (call.row_key, call.step, call.api, call.model, call.request_key,
                     json.dumps(call.request, sort_keys=True, ensure_ascii=False),
                     json.dumps(call.response, sort_keys=True, ensure_ascii=False), call.status,
                     call.prompt_tokens, call.completion_tokens, call.cost_usd, call.latency_ms,
                     call.source, call.workspace, call.started))
        finally:
            conn.close()

    def calls(self, row_key: str | None = None) -> list[ModelCall]:
        where, params = ("WHERE row_key = ?", (row_key,)) if row_key is not None else ("", ())
        conn = self._connect()
        try:
            rows = conn.execute(f"SELECT * FROM model_calls {where} ORDER BY id", params).fetchall()
        finally:
            conn.close()
        return [ModelCall(row_key=r["row_key"], step=r["step"], api=r["api"], model=r["model"],
                          request=json.loads(r["request_json"]), response=json.loads(r["response_json"]),
                          status=r["status"], prompt_tokens=r["prompt_tokens"],
                          completion_tokens=r["completion_tokens"], cost_usd=r["cost_usd"],
                          latency_ms=r["latency_ms"], source=r["source"], started=r["started"],
                          workspace=r["workspace"], request_key=r["request_key"]) for r in rows]


    def totals(self) -> dict[str, dict[str, Any]]:
        """Per row: calls by source, and the tokens and dollars of the calls forwarded upstream -- what
        the row spent, counted once: a replayed call costs nothing again, a refused one nothing at all.
        Every attempt of the row counts (a retried row spent on each attempt)."""
        conn = self._connect()
        try:
            rows = conn.execute(
                "SELECT row_key, source, COUNT(*) AS n, SUM(prompt_tokens) AS p, SUM(completion_tokens) AS c, "
                "SUM(cost_usd) AS cost, COUNT(cost_usd) AS priced FROM model_calls GROUP BY row_key, source"
            ).fetchall()
        except sqlite3.OperationalError:  # a store from before the gateway: no table, no calls
            return {}
        finally:
            conn.close()
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            t = out.setdefault(r["row_key"], {"calls": 0, **dict.fromkeys(SOURCES, 0), "prompt_tokens": 0,
                                              "completion_tokens": 0, "cost_usd": None, "cost_complete": True})
            t["calls"] += r["n"]
            t[r["source"]] = t.get(r["source"], 0) + r["n"]
            if r["source"] == "upstream":  # one group per (row, source): assigned once
                t["prompt_tokens"], t["completion_tokens"] = r["p"] or 0, r["c"] or 0
                t["cost_usd"] = r["cost"] if r["priced"] else None  # None: no price known for its model
                t["cost_complete"] = r["priced"] == r["n"]
        return out


class ReplayCursor:
    """The recorded, answered calls of one row, each served at most once (see the module docstring)."""

    def __init__(self, recorded: list[ModelCall]) -> None:
        answered = [c for c in recorded if c.status == 200]
        upstream = [c for c in answered if c.source == "upstream"]
        # a recording made by replaying another one is used only when it is all there is
        self._left = upstream or [c for c in answered if c.source == "replay"]
        self._lock = threading.Lock()

    def take(self, api: str, body: dict[str, Any]) -> ModelCall | None:
        key = request_key(api, body)
        model = str(body.get("model", ""))
        size = _size(body)
        with self._lock:
            same_api = [c for c in self._left if c.api == api]
            rules: tuple[Callable[[ModelCall], bool], ...] = (
                lambda c: c.request_key == key,
                lambda c: c.model == model and _size(c.request) == size,
                lambda c: c.model == model)
            for rule in rules:
                match = next((c for c in same_api if rule(c)), None)
                if match is not None:
                    self._left.remove(match)
                    return match
        return None

    def __len__(self) -> int:
        return len(self._left)


def _size(body: dict[str, Any]) -> int:
    """Number of conversation items of a request (messages or Responses input items)."""
    items = body.get("messages", body.get("input"))
    return len(items) if isinstance(items, list) else 1
