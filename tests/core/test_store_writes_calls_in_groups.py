"""Model calls are written by one group-commit writer per run store (`core.store.writer`), durable before
their row's attempt is recorded.

* A real subprocess records calls from many threads and reports rows done (their attempts recorded) while
  other rows keep calling; it is killed with SIGKILL: every call of every row it reported done is in the
  store, whole.
* Calls recorded at once from many threads all land, fewer transactions than calls hold them, and each row's
  store bound ends up charged exactly what its calls added (the estimate a queued call is charged is
  replaced once it is written).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from reqbench.core.execute.types import Row
from reqbench.core.llm.gateway import ModelCall, StoreRecorder
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.writer import writer_for

THREADS, CALLS = 4, 20
"""Each row: `THREADS` threads record `CALLS` calls each."""

WRITER = textwrap.dedent('''
    import sys, threading, time
    from pathlib import Path
    from reqbench.core.execute.types import Row, RowOutcome, RowStatus
    from reqbench.core.llm.gateway import ModelCall, StoreRecorder
    from reqbench.core.store import RunStore

    THREADS, CALLS = int(sys.argv[2]), int(sys.argv[3])
    store = RunStore.open(Path(sys.argv[1]))
    recorder = StoreRecorder.for_store(store)

    def calls(row, thread, n):
        for i in range(n):
            text = f"{row} thread {thread} call {i} " + "fresh output " * (40 + i)
            recorder.record(ModelCall(row_key=row, step=thread * 1000 + i, api="chat", model="m",
                                      request={"messages": [{"role": "user", "content": text}]},
                                      response={"choices": [{"message": {"content": text[::-1]}}]},
                                      status=200), 1 << 30)

    def busy(row):  # a row still running when the process dies: it never stops calling
        i = 0
        while True:
            calls(row, i, 5)
            time.sleep(0.005)
            i += 1

    threading.Thread(target=busy, args=("running|c|a|0",), daemon=True).start()
    for number in range(1000):
        row = Row(f"t{number}", "c", "a", 0)
        workers = [threading.Thread(target=calls, args=(row.key, t, CALLS)) for t in range(THREADS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        store.record_attempt(row, RowOutcome(RowStatus.SCORED, result={"n": number}))
        print("done", row.key, flush=True)
''')


def new_store(path: Path, rows: int = 0) -> RunStore:
    store = RunStore.create(path, RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(),
                                          reqbench_version="0"))
    store.add_plan([Row(f"t{n}", "c", "a", 0) for n in range(rows)] + [Row("running", "c", "a", 0)])
    return store


def test_a_killed_process_loses_no_call_of_a_row_it_reported_done(tmp_path: Path) -> None:
    new_store(tmp_path / "run", rows=1000).close()
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "run"), str(THREADS), str(CALLS)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    done = []
    try:
        while len(done) < 4:
            line = proc.stdout.readline()
            assert line, "the writing process ended early"
            done.append(line.split()[1])
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # right after it said so: calls of other rows are still queued
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with RunStore.open(tmp_path / "run") as store:
        recorded = StoreRecorder.for_store(store).calls()
        by_row: dict[str, list[ModelCall]] = {}
        for call in recorded:
            by_row.setdefault(call.row_key, []).append(call)
        attempted = {row.key for row in store.plan() if store.attempts(row)}
    assert set(done) <= attempted
    for row in done:
        calls = by_row.get(row, [])
        assert len(calls) == THREADS * CALLS, f"{row}: {len(calls)} of {THREADS * CALLS} calls survived"
        for call in calls:
            text = call.request["messages"][0]["content"]
            assert text.startswith(f"{row} thread ") and call.response["choices"][0]["message"]["content"] == text[::-1]
    assert "running|c|a|0" in by_row  # it really was writing when it was killed


def test_calls_recorded_at_once_from_many_threads_all_land_in_fewer_transactions(tmp_path: Path) -> None:
    store = new_store(tmp_path / "run")
    recorder = StoreRecorder.for_store(store)
    bound = 1 << 30
    writer = writer_for(tmp_path / "run" / "run.sqlite")
    commits = writer.commits

    def calls(thread: int) -> None:
        for i in range(CALLS):
            text = f"thread {thread} call {i} " + "x" * 600
            recorder.record(ModelCall(row_key=f"row{thread % 4}", step=i, api="chat", model="m",
                                      request={"messages": [{"role": "user", "content": text}]},
                                      response={"choices": [{"message": {"content": "ok"}}]}, status=200), bound)

    workers = [threading.Thread(target=calls, args=(t,)) for t in range(4 * THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    recorded = recorder.calls()  # reading back writes what is queued first
    assert len(recorded) == 4 * THREADS * CALLS
    assert {c.request["messages"][0]["content"][:20] for c in recorded} == {
        (f"thread {t} call {i} " + "x" * 20)[:20] for t in range(4 * THREADS) for i in range(CALLS)}
    assert writer.commits - commits < len(recorded)
    store.close()
    import sqlite3

    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    stored = dict(conn.execute("SELECT row_key, SUM(stored_bytes) FROM model_calls GROUP BY row_key").fetchall())
    conn.close()
    for row, added in stored.items():
        assert recorder.quota(row, bound).used == added  # every estimate replaced by what the call added


def test_a_run_directory_removed_and_made_again_gets_its_own_calls(tmp_path: Path) -> None:
    """The writer keeps its connection between groups; a store made anew at the same path is a new file."""
    import shutil

    for n in range(2):
        store = new_store(tmp_path / "run")
        recorder = StoreRecorder.for_store(store)
        recorder.record(ModelCall(row_key="r", step=1, api="chat", model="m", request={"n": n}, response={},
                                  status=200))
        assert [c.request for c in recorder.calls()] == [{"n": n}]
        shutil.rmtree(tmp_path / "run")  # not closed first: the writer's connection is still open


def test_cache_puts_from_many_threads_are_durable_when_they_return_and_the_first_wins(tmp_path: Path) -> None:
    store = new_store(tmp_path / "run")
    writer = writer_for(tmp_path / "run" / "run.sqlite")
    commits = writer.commits

    def put(thread: int) -> None:
        for i in range(CALLS):
            store.put_cached("llm", f"k{i}", {"from": thread, "text": "y" * 400})

    workers = [threading.Thread(target=put, args=(t,)) for t in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert writer.commits - commits <= THREADS * CALLS
    with RunStore.open(tmp_path / "run", read_only=True) as reader:
        items = reader.cached_items("llm")
    assert sorted(items) == sorted(f"k{i}" for i in range(CALLS))
    store.put_cached("llm", "k0", {"from": "later"})
    assert store.get_cached("llm", "k0") == items["k0"]  # the first recorded value wins
    store.close()


def test_a_failing_write_loses_only_itself_and_is_raised_where_the_row_is_recorded(tmp_path: Path) -> None:
    import sqlite3

    import pytest

    from reqbench.core.execute.types import RowOutcome, RowStatus

    store = new_store(tmp_path / "run", rows=1)
    writer = writer_for(tmp_path / "run" / "run.sqlite")
    busy = sqlite3.connect(tmp_path / "run" / "run.sqlite", isolation_level=None)
    busy.execute("BEGIN IMMEDIATE")  # the writes below queue up and go into one group together
    for n in range(3):
        writer.submit(lambda conn, n=n: conn.execute("INSERT INTO gradings VALUES (?, 'now', 'j', 0, '')", (f"g{n}",)))
        if n == 1:
            writer.submit(lambda conn: conn.execute("INSERT INTO no_such_table VALUES (1)"))
    busy.execute("ROLLBACK")
    busy.close()
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        store.record_attempt(Row("t0", "c", "a", 0), RowOutcome(RowStatus.SCORED))
    assert [g["label"] for g in store.gradings() if g["label"] != "original"] == ["g0", "g1", "g2"]
    assert store.attempts(Row("t0", "c", "a", 0)) == []  # not reported done while a write was lost
    writer.flush()  # said once
    store.close()
