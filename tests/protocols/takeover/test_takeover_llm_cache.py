"""`reqbench run --judge llm:MODEL` records every model call in the run store, and `--offline` replays it.

Threats guarded: a run whose judge answers live only in memory (so re-running or re-scoring it asks the
model again, at a cost and with possibly different answers); `--offline` quietly sending requests; an
offline miss counted as an agent failure or a score instead of stopping the run with one sentence.
Real loopback server, real `reqbench run` subprocesses, real SQLite.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.protocols.takeover.takeover_suite_factory import mini_suite
from tests.protocols.takeover.test_judge_llm_scoring import _answer
from tests.protocols.takeover.test_takeover_runs import report, run, shared_cache  # noqa: F401
from tests.support.scripted_openai import ScriptedOpenAI

ARGS = ("--condition", "diag-C1", "--agent", "reference", "--judge", "llm:scripted")
OFFLINE_MISS = "offline mode: no recorded response"


def _count(run_dir: Path, sql: str) -> int:
    conn = sqlite3.connect(run_dir / "run.sqlite")
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def _forget_attempts(run_dir: Path) -> None:
    """Drop every stored attempt (keeping plan and cache) so `--resume` runs each row again."""
    conn = sqlite3.connect(run_dir / "run.sqlite")
    try:
        with conn:
            for table in ("attempt_artifacts", "submissions", "check_results", "scores", "attempts"):
                conn.execute(f"DELETE FROM {table}")
    finally:
        conn.close()


@pytest.fixture
def judge_server(monkeypatch: pytest.MonkeyPatch):
    swap = [False]
    with ScriptedOpenAI(lambda body, i: _answer(body, i, swap)) as srv:
        monkeypatch.setenv("REQBENCH_BASE_URL", srv.base_url)
        monkeypatch.setenv("REQBENCH_API_KEY", "test-key")
        for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE"):
            monkeypatch.delenv(name, raising=False)
        yield srv


def test_judge_calls_are_stored_in_the_run_and_an_offline_rerun_sends_nothing(tmp_path: Path, judge_server):
    suite = mini_suite(tmp_path / "suite", ("T001",))
    proc = run(suite, tmp_path, "r", *ARGS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sent = len(judge_server.chat_requests)
    assert sent > 0
    # one stored record per distinct request sent, nothing else under the model-call namespace
    assert _count(tmp_path / "r", "SELECT COUNT(*) FROM cache WHERE kind = 'llm'") == sent
    online = report(tmp_path / "r", tmp_path)
    assert online["rq1"]["diag-C1"]["pending"] == 0 and online["rq3_content"]["diag-C1"]["pending"] == 0

    _forget_attempts(tmp_path / "r")
    proc = run(suite, tmp_path, "r", *ARGS, "--resume", "--offline")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(judge_server.chat_requests) == sent  # every judge answer came from run.sqlite
    rows = _count(tmp_path / "r", "SELECT COUNT(*) FROM plan")
    assert _count(tmp_path / "r", "SELECT COUNT(*) FROM attempts WHERE status = 'scored'") == rows
    assert report(tmp_path / "r", tmp_path) == online


def test_offline_with_an_empty_cache_stops_the_run_with_one_sentence(tmp_path: Path, judge_server):
    suite = mini_suite(tmp_path / "suite", ("T001",))
    proc = run(suite, tmp_path, "r", *ARGS, "--offline")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert OFFLINE_MISS in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    assert judge_server.chat_requests == []
    # no attempt was stored, so the run directory it created is gone: a later online run starts afresh
    # instead of finding an agent failure
    assert not (tmp_path / "r").exists()
