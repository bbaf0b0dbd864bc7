"""Where the gateway writes every model call it answers, and where offline replay finds them again.

A `ModelCall` is one agent request and the gateway's answer: the row it belongs to, its step (the
n-th call of that row's lease), the API, the model the request named and the model that answered
(``served_model``), request and response bodies, tokens, cost, latency and its ``source`` (``upstream``:
forwarded and answered; ``replay``: served from a recording; ``refused``: refused by the gateway, offline
miss or upstream failure). A call the gateway refused keeps only a digest of its request
(`limits.refused_digest`: size, SHA-256, first KiB).

Two recorders share one interface: `StoreRecorder` writes the run store's ``model_calls`` table through
the store's group-commit writer (`core.store.writer`: calls arriving together share a transaction, and no
answer waits for a commit; they are durable before their row's attempt is recorded) and `MemoryRecorder`
keeps calls in a list (outside a run, remote rows, tests). Bodies are stored as content-addressed parts
(`core.store.blobs`), shared with the record/replay cache; what a call adds to the store (its new parts)
counts against the row's store bound (`quota`, per row) when `record` is given that bound.

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
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from reqbench.core.hashing import sha256_json
from reqbench.core.llm.gateway.quota import TrafficQuota, row_quota
from reqbench.core.store.blobs import BLOBS_DDL, Parts
from reqbench.core.store.writer import flush_writes, writer_for

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
    served_model: str = ""
    """The model that answered: the ``model`` a 200 response names (the forwarded name when it names none);
    empty for a call that was not answered."""

    def __post_init__(self) -> None:
        if not self.request_key:
            self.request_key = request_key(self.api, self.request)

    def to_dict(self) -> dict[str, Any]:
        return {"row_key": self.row_key, "step": self.step, "api": self.api, "model": self.model,
                "request_key": self.request_key, "request": self.request, "response": self.response,
                "status": self.status, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd,
                "latency_ms": self.latency_ms, "source": self.source, "started": self.started,
                "workspace": self.workspace, "served_model": self.served_model}

    def estimated_bytes(self) -> int:
        """What the call is charged until it is written: at least what it can add (twice its bodies' JSON:
        a part's row overhead is under its size). What it adds is usually far less -- compressed, and a
        repeated prefix adds nothing -- so a row near its bound has its queued calls written and counted
        by what they added before a call is refused (`quota.TrafficQuota.reserve`)."""
        return 2 * (len(json.dumps(self.request, ensure_ascii=False))
                    + len(json.dumps(self.response, ensure_ascii=False))) + 256

    def packed(self, parts: Parts) -> tuple[str, str, int]:
        """Request and response as part forms (their new parts written through `parts`), and the bytes the
        call adds to the store: its new parts and the two forms."""
        before = parts.added
        request, response = parts.pack(self.request), parts.pack(self.response)
        return request, response, parts.added - before + len(request) + len(response)


def request_key(api: str, body: dict[str, Any]) -> str:
    """Content address of a request (without ``stream``: a streamed and a plain call ask the same)."""
    return sha256_json({"api": api, "body": {k: v for k, v in body.items()
                                             if k not in ("stream", "stream_options")}})


class Recorder(Protocol):
    def record(self, call: ModelCall, bound: int | None = None) -> None:
        """Keep `call`; with `bound`, charge what it adds to the store against its row's store bound
        (`quota`, limit `bound`)."""

    def calls(self, row_key: str | None = None) -> list[ModelCall]: ...

    def quota(self, row_key: str, limit: int) -> TrafficQuota:
        """The store bound of `row_key`'s calls (limit set to `limit`), counting what they added so far."""

    def flush(self) -> None:
        """Return once every call recorded so far is durable."""


class MemoryRecorder:
    """Calls in a list; lives as long as the process. Their parts are counted in a private in-memory
    database, so a row is charged here exactly what the run store will charge it."""

    def __init__(self) -> None:
        self._calls: list[ModelCall] = []
        self._lock = threading.Lock()
        self._parts = sqlite3.connect(":memory:", check_same_thread=False)
        self._parts.executescript(BLOBS_DDL)
        self._added: dict[str, int] = {}
        self._quotas: dict[str, TrafficQuota] = {}

    def record(self, call: ModelCall, bound: int | None = None) -> None:
        with self._lock:
            self._calls.append(call)
            with self._parts:
                added = call.packed(Parts(self._parts))[2]
            self._added[call.row_key] = self._added.get(call.row_key, 0) + added
        if bound is not None:
            self.quota(call.row_key, bound).settle(0, added)

    def quota(self, row_key: str, limit: int) -> TrafficQuota:
        with self._lock:
            quota = self._quotas.get(row_key)
            if quota is None:
                quota = self._quotas[row_key] = TrafficQuota(limit, self._added.get(row_key, 0))
            quota.limit = limit
            return quota

    def calls(self, row_key: str | None = None) -> list[ModelCall]:
        with self._lock:
            return [c for c in self._calls if row_key is None or c.row_key == row_key]

    def flush(self) -> None:
        return


class StoreRecorder:
    """The ``model_calls`` table of a run store (``run.sqlite``), written by the file's group-commit writer
    (`core.store.writer`): `record` queues a call and returns; calls arriving together share a transaction.
    A call is charged against its row's bound at once by an estimate (its bodies' JSON size), replaced by
    what it added once written, so a row never passes its bound by more than the calls it has in flight."""

    def __init__(self, db_path: Path | str) -> None:
        self.db_path = Path(db_path)

    @classmethod
    def for_store(cls, store: Any) -> StoreRecorder:
        from reqbench.core.store.runstore import DB_NAME

        return cls(Path(store.run_dir) / DB_NAME)

    def _connect(self) -> sqlite3.Connection:
        flush_writes(self.db_path, check=False)  # what this process recorded is read back
        conn = sqlite3.connect(self.db_path, timeout=30.0)
        conn.row_factory = sqlite3.Row
        return conn

    def record(self, call: ModelCall, bound: int | None = None) -> None:
        quota = self.quota(call.row_key, bound) if bound is not None else None
        estimate = call.estimated_bytes()
        if quota is not None:
            quota.settle(0, estimate)

        def written(added: int | None, error: BaseException | None) -> None:
            if quota is not None:
                quota.settle(estimate, added or 0)

        writer_for(self.db_path).submit(partial(_insert, call), written, size=estimate // 2)

    def flush(self) -> None:
        flush_writes(self.db_path, check=False)  # a failed write is raised where the row is recorded

    def quota(self, row_key: str, limit: int) -> TrafficQuota:
        return row_quota(self.db_path, row_key, limit)

    def calls(self, row_key: str | None = None) -> list[ModelCall]:
        where, params = ("WHERE row_key = ?", (row_key,)) if row_key is not None else ("", ())
        conn = self._connect()
        try:
            parts = Parts(conn)
            rows = conn.execute(f"SELECT * FROM model_calls {where} ORDER BY id", params).fetchall()
            return [_call(parts, r) for r in rows]
        finally:
            conn.close()

    def totals(self) -> dict[str, dict[str, Any]]:
        """Per row: calls by source, the tokens and dollars of the calls forwarded upstream -- what the row
        spent, counted once: a replayed call costs nothing again, a refused one nothing at all -- and the
        models that answered (`models_used`). Every attempt of the row counts (a retried row spent on each
        attempt)."""
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
                                              "completion_tokens": 0, "cost_usd": None, "cost_complete": True,
                                              "models": {}})
            t["calls"] += r["n"]
            t[r["source"]] = t.get(r["source"], 0) + r["n"]
            if r["source"] == "upstream":  # one group per (row, source): assigned once
                t["prompt_tokens"], t["completion_tokens"] = r["p"] or 0, r["c"] or 0
                t["cost_usd"] = r["cost"] if r["priced"] else None  # None: no price known for its model
                t["cost_complete"] = r["priced"] == r["n"]
        for row_key, models in self.models_used().items():
            out[row_key]["models"] = models
        return out

    def models_used(self) -> dict[str, dict[str, int]]:
        """Per row: answered calls (forwarded or replayed) per model that answered them (the model the
        request named, for calls recorded before the answering model was)."""
        conn = self._connect()
        try:
            rows = conn.execute(
                "SELECT row_key, CASE WHEN served_model != '' THEN served_model ELSE model END AS m, "
                "COUNT(*) AS n FROM model_calls WHERE status = 200 GROUP BY row_key, m ORDER BY row_key, m"
            ).fetchall()
        except sqlite3.OperationalError:  # a store from before served_model (or before the gateway)
            return {}
        finally:
            conn.close()
        out: dict[str, dict[str, int]] = {}
        for r in rows:
            out.setdefault(r["row_key"], {})[r["m"]] = r["n"]
        return out


def _insert(call: ModelCall, conn: sqlite3.Connection) -> int:
    """Write `call` as one ``model_calls`` row (inside the writer's transaction); the bytes it added."""
    request, response, added = call.packed(Parts(conn))
    conn.execute(
        "INSERT INTO model_calls (row_key, step, api, model, request_key, request_json, response_json, status, "
        "prompt_tokens, completion_tokens, cost_usd, latency_ms, source, workspace, started, served_model, "
        "packed, stored_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
        (call.row_key, call.step, call.api, call.model, call.request_key, request, response, call.status,
         call.prompt_tokens, call.completion_tokens, call.cost_usd, call.latency_ms, call.source, call.workspace,
         call.started, call.served_model, added))
    return added


def _call(parts: Parts, r: sqlite3.Row) -> ModelCall:
    """One ``model_calls`` row: bodies from their parts (``packed``), else from JSON text (older stores)."""
    keys = r.keys()
    body = parts.unpack if "packed" in keys and r["packed"] else json.loads
    return ModelCall(row_key=r["row_key"], step=r["step"], api=r["api"], model=r["model"],
                     request=body(r["request_json"]), response=body(r["response_json"]), status=r["status"],
                     prompt_tokens=r["prompt_tokens"], completion_tokens=r["completion_tokens"],
                     cost_usd=r["cost_usd"], latency_ms=r["latency_ms"], source=r["source"], started=r["started"],
                     workspace=r["workspace"], request_key=r["request_key"],
                     served_model=r["served_model"] if "served_model" in keys else "")


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
        size = _items(body)
        with self._lock:
            same_api = [c for c in self._left if c.api == api]
            rules: tuple[Callable[[ModelCall], bool], ...] = (
                lambda c: c.request_key == key,
                lambda c: c.model == model and _items(c.request) == size,
                lambda c: c.model == model)
            for rule in rules:
                match = next((c for c in same_api if rule(c)), None)
                if match is not None:
                    self._left.remove(match)
                    return match
        return None

    def __len__(self) -> int:
        return len(self._left)


def _items(body: dict[str, Any]) -> int:
    """Number of conversation items of a request (messages or Responses input items)."""
    items = body.get("messages", body.get("input"))
    return len(items) if isinstance(items, list) else 1
