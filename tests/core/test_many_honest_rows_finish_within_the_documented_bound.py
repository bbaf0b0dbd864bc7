"""A paper-scale run of honest long conversations: every row answered in full, within the documented bound.

Many rows (8 at a time, like a run at ``--concurrency 8``) each hold a 60-turn conversation through the
model gateway, every turn adding ~3 KB of fresh tool output to everything said before, under the documented
store bound (`limits.DEFAULT_ROW_STORE_BYTES`, no override). No call is refused, no row is cut off, and each
row's recorded traffic stays within twice its largest request -- linear in the new content, so the 1,470
rows of a SpecPath configuration would hold under 0.6 GB, not the ~8.5 GB of their requests stored whole. Real gateway,
real loopback provider, real run store (its group-commit writer under concurrent rows).
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
from pathlib import Path

import httpx
import pytest

from reqbench.core.llm.gateway import Gateway, Lease, StoreRecorder, Upstream
from reqbench.core.llm.gateway.limits import DEFAULT_ROW_STORE_BYTES, ROW_STORE_ENV
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.support.scripted_openai import ScriptedOpenAI, reply

pytestmark = pytest.mark.slow  # 2,400 calls of conversations up to ~190 KB

ROWS, TURNS, CONCURRENCY = 40, 60, 8


def conversation(gw: Gateway, lease: Lease, upstream: ScriptedOpenAI) -> tuple[list[int], int]:
    """One honest row: its answers' statuses and the size of its largest request."""
    messages = [{"role": "system", "content": "You are a coding agent. " * 40}]
    statuses, largest = [], 0
    with httpx.Client() as http:
        for turn in range(TURNS):
            messages.append({"role": "user", "content": f"output {turn}:\n" + os.urandom(1500).hex()})
            body = {"model": "scripted", "messages": messages}
            largest = max(largest, len(json.dumps(body)))
            answer = http.post(gw.base_url + "/chat/completions", json=body, timeout=120,
                               headers={"Authorization": f"Bearer {lease.token}"})
            statuses.append(answer.status_code)
            messages.append(answer.json()["choices"][0]["message"])
            upstream.requests.clear()  # the provider need not keep 2,400 bodies
    return statuses, largest


def test_many_honest_long_rows_are_answered_in_full_and_stay_within_the_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ROW_STORE_ENV, raising=False)
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    rows: queue.Queue[int] = queue.Queue()
    for row in range(ROWS):
        rows.put(row)
    results: dict[str, tuple[list[int], int, str | None]] = {}

    def worker(gw: Gateway, upstream: ScriptedOpenAI) -> None:
        while True:
            try:
                row = rows.get_nowait()
            except queue.Empty:
                return
            lease = gw.open_row(f"row-{row}")
            statuses, largest = conversation(gw, lease, upstream)
            results[lease.row_key] = (statuses, largest, lease.usage()["resource_limit"])
            gw.close_row(lease)

    with ScriptedOpenAI(lambda body, i: reply("ok, next")) as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store)) as gw:
        threads = [threading.Thread(target=worker, args=(gw, upstream)) for _ in range(CONCURRENCY)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    store.close()

    assert len(results) == ROWS
    assert all(statuses == [200] * TURNS and limit is None for statuses, _, limit in results.values())
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    stored = dict(conn.execute("SELECT row_key, SUM(stored_bytes) FROM model_calls GROUP BY row_key").fetchall())
    calls = conn.execute("SELECT COUNT(*) FROM model_calls WHERE status = 200").fetchone()[0]
    conn.close()
    assert calls == ROWS * TURNS
    largest = max(size for _, size, _ in results.values())
    assert largest > 180_000  # the conversations really grew
    assert all(stored[row] <= 2 * largest for row in results), max(stored.values())
    assert max(stored.values()) < DEFAULT_ROW_STORE_BYTES / 500
    files = sum(p.stat().st_size for p in (tmp_path / "run").glob("run.sqlite*"))
    assert files <= ROWS * 2 * largest  # scaled to 1,470 such rows: < 0.6 GB; bodies stored whole: ~8.5 GB
