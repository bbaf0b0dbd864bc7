"""Judge calls are stored as content-addressed parts: a long prompt many calls share is stored once.

A grading pass sends the same long system prompt (the contract, the rubric) with every call; stored whole,
the judge-call log grew with calls x prompt. Real SQLite file; the store reads back exactly what was
recorded, and a store written before (bodies as JSON text, schema 6) opens, upgrades and reads the same.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from pathlib import Path

from reqbench.core.store import SCHEMA_VERSION, JudgeCall, RunMeta, RunStore, utc_now

CALLS = 40
PROMPT = secrets.token_urlsafe(24_000)  # ~32 KB that compresses little: stored once, it shows


def new_store(path: Path) -> RunStore:
    return RunStore.create(path, RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(),
                                         reqbench_version="0"))


def judge_call(i: int) -> JudgeCall:
    request = {"model": "judge-m", "messages": [{"role": "system", "content": PROMPT},
                                                {"role": "user", "content": f"Is answer {i} correct? " * 3}]}
    response = {"choices": [{"message": {"role": "assistant", "content": f"label {i % 3}"}}]}
    return JudgeCall(request_key=f"k{i}", judge_id="llm:judge-m", contract="rq3", request=request,
                     response=response, started=utc_now(), finished=utc_now())


def stored_bytes(db: Path) -> int:
    """Bytes of the judge-call rows and of the parts they hold."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT COALESCE(SUM(LENGTH(CAST(request_json AS BLOB)) + "
                            "LENGTH(CAST(response_json AS BLOB))), 0) FROM judge_calls").fetchone()[0]
        parts = conn.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs").fetchone()[0]
        return int(rows) + int(parts)
    finally:
        conn.close()


def test_judge_calls_sharing_a_long_prompt_store_it_once(tmp_path: Path) -> None:
    calls = [judge_call(i) for i in range(CALLS)]
    with new_store(tmp_path / "run") as store:
        for call in calls:
            store.record_judge_call(call)
        assert store.judge_calls() == calls
        assert store.judge_calls("k7") == [calls[7]]
    whole = sum(len(json.dumps(c.request)) + len(json.dumps(c.response)) for c in calls)
    stored = stored_bytes(tmp_path / "run" / "run.sqlite")
    assert whole > CALLS * len(PROMPT)
    assert stored < 1.2 * len(PROMPT) + CALLS * 1024, f"{stored} bytes stored for a {len(PROMPT)}-byte prompt"
    with RunStore.open(tmp_path / "run", read_only=True) as reader:  # the viewer, export and regrade read this
        assert reader.judge_calls() == calls


def test_a_store_written_before_opens_and_reads_its_judge_calls_as_they_were(tmp_path: Path) -> None:
    old = judge_call(1)
    with new_store(tmp_path / "run"):
        pass
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")  # as schema 6 wrote it: bodies as JSON text
    conn.execute("ALTER TABLE judge_calls DROP COLUMN packed")
    conn.execute("INSERT INTO judge_calls (request_key, judge_id, contract, request_json, response_json, started, "
                 "finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (old.request_key, old.judge_id, old.contract, json.dumps(old.request, sort_keys=True),
                  json.dumps(old.response, sort_keys=True), old.started, old.finished))
    conn.execute("PRAGMA user_version=6")
    conn.commit()
    conn.close()
    with RunStore.open(tmp_path / "run") as store:
        assert store._query("PRAGMA user_version")[0][0] == SCHEMA_VERSION == 7
        assert store.judge_calls() == [old]
        new = judge_call(2)
        store.record_judge_call(new)
        assert store.judge_calls() == [old, new]
