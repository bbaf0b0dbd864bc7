"""Threat: a row makes the run store busy -- a flood of calls whose records commit one after another, a
slow disk -- and every other row's model calls wait for the store before they are answered. Each recorded
call used to be its own transaction on its own connection, taken before the answer was sent: while the
store's write lock was held, every row's answer waited for it (50 rows at once: gateway p99 1,015 ms), up
to SQLite's 30 s busy timeout.

Calls are now queued to the store's group-commit writer and answered at once; they are written when the
lock is free and durable before the row's attempt is recorded. Here the store's write lock is held by
another connection while an honest row calls through the gateway: its answers come back all the same, and
every call is in the store once the lock is released. Real gateway, real loopback provider, real SQLite.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from reqbench.core.llm.gateway import Gateway, StoreRecorder, Upstream
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.support.scripted_openai import ScriptedOpenAI, reply

CALLS = 5


def test_answers_are_not_held_back_while_the_store_is_busy(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    recorder = StoreRecorder.for_store(store)
    with ScriptedOpenAI(lambda body, i: reply("ok")) as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=recorder) as gw:
        lease = gw.open_row("honest")
        busy = sqlite3.connect(tmp_path / "run" / "run.sqlite", isolation_level=None)
        busy.execute("BEGIN IMMEDIATE")  # the store's write lock, held as a long commit would hold it
        try:
            with httpx.Client(timeout=10) as http:
                statuses = [http.post(gw.base_url + "/chat/completions",
                                      headers={"Authorization": f"Bearer {lease.token}"},
                                      json={"model": "scripted", "messages": [{"role": "user", "content": f"q{i}"}]}
                                      ).status_code for i in range(CALLS)]
        except httpx.TimeoutException:
            statuses = ["no answer within 10 s"]
        finally:
            busy.execute("ROLLBACK")
            busy.close()
        assert statuses == [200] * CALLS
    recorded = recorder.calls("honest")
    assert [c.request["messages"][0]["content"] for c in recorded] == [f"q{i}" for i in range(CALLS)]
    store.close()
