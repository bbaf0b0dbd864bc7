"""The driver records finished attempts while no row thread is working (`core.idle`), but a row that keeps
working never holds recording back for longer than `RECORD_DEFER_SECONDS`. Real runs of the toy
protocol, a real SQLite file read from inside a row."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from reqbench.core import idle
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.runner import RECORD_DEFER_SECONDS
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import DB_NAME, RunMeta, RunStore, utc_now
from tests.core.toy_protocol import ToyProtocol, write_suite


def _recorded(run_dir: Path, task: str) -> bool:
    with sqlite3.connect(f"file:{run_dir / DB_NAME}?mode=ro", uri=True, timeout=5) as db:
        return db.execute("SELECT count(*) FROM attempts WHERE row_key LIKE ?", (f"%{task}%",)).fetchone()[0] > 0


def test_a_row_that_keeps_working_holds_back_another_rows_record_only_briefly(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "quick", "value": 1}, {"id": "busy", "value": 2}])
    loaded = ToyProtocol().load(suite)
    run_dir = tmp_path / "run"
    waited: dict[str, float] = {}
    busy_started = threading.Event()
    run_row = loaded.run_row

    def row(r: Any, ctx: Any) -> Any:
        if "quick" in r.key:
            busy_started.wait(30)  # ends while the busy row is working
        if "busy" in r.key:  # works (never waits on a process) until the quick row's attempt is stored
            busy_started.set()
            started = time.monotonic()
            while not _recorded(run_dir, "quick") and time.monotonic() - started < 30:
                time.sleep(0.005)
            waited["busy"] = time.monotonic() - started
        return run_row(r, ctx)

    loaded.run_row = row  # type: ignore[method-assign]
    meta = RunMeta(suite_path=str(suite), protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    with RunStore.create(run_dir, meta) as store:
        rows = [r for r in loaded.plan(RunOptions()) if r.condition == "A"]  # one quick row, one busy row
        execute_run(store, loaded, RunOptions(concurrency=2), rows=rows)
        assert store.counts()["scored"] == 2
    assert 0.9 * RECORD_DEFER_SECONDS <= waited["busy"] < RECORD_DEFER_SECONDS + 10  # deferred, briefly


def test_idle_counts_only_working_threads_that_are_not_waiting() -> None:
    assert idle.idle(timeout=0)
    with idle.waiting():  # a thread that never worked: no effect
        assert idle.idle(timeout=0)
    with idle.working():
        assert not idle.idle(timeout=0.05)
        with idle.working():  # nested: still one
            with idle.waiting():
                assert idle.idle(timeout=0)
        assert not idle.idle(timeout=0)
    assert idle.idle(timeout=0)


def test_side_by_side_threads_work_for_a_working_caller_which_only_waits() -> None:
    both_started = threading.Barrier(2, timeout=30)
    seen: list[bool] = []

    def call(value: int) -> int:
        both_started.wait()  # the two calls run at the same time
        seen.append(idle.idle(timeout=0))  # the other call is working: not idle
        return value

    with idle.working():
        assert idle.side_by_side([lambda: call(1), lambda: call(2)]) == [1, 2]
    assert seen == [False, False]
    assert idle.side_by_side([lambda: 3]) == [3] and idle.idle(timeout=0)  # a caller that never worked


def test_a_chore_started_before_the_rows_waits_until_they_have_worked_and_all_wait() -> None:
    """`idle.after_work` (the CLI warms the report's imports with it): not before any row has worked, not
    while one works, then as soon as none does. In a fresh interpreter: the state is per process."""
    code = """
import threading
from reqbench.core import idle
assert not idle.after_work(timeout=0.05), "no row has worked yet"
inside, release = threading.Event(), threading.Event()
def row():
    with idle.working():
        inside.set()
        release.wait(30)
t = threading.Thread(target=row)
t.start()
inside.wait(30)
assert not idle.after_work(timeout=0.05), "a row is working"
release.set()
t.join()
assert idle.after_work(timeout=30)
print("ok")
"""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
