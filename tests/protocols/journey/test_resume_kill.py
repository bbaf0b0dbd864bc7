"""A `reqbench run` killed with SIGKILL in the middle of a journey session resumes from the session's last
completed turn: `reqbench run --resume RUN_DIR` asks the assistant again only from the turn that was in
flight, and the session ends as an uninterrupted one does (real subprocess, real SQLite, real hidden
tests)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from reqbench.core.store import RunStore
from tests.cli.generic_helpers import REPO, cli_cmd, cli_env, reqbench

from .conftest import build_instance
from .spy_agent import asked

SPY = "tests.protocols.journey.spy_agent:make_spy"


def _completed_turns(db: Path) -> int:
    """Turns whose tests and user reaction are checkpointed (read-only peek at the live run store)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            rows = conn.execute("SELECT key FROM cache WHERE kind = 'journey-turn'").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    return sum(1 for (key,) in rows if key.rsplit("|", 1)[-1].endswith("u"))


def test_a_session_killed_mid_way_resumes_from_its_last_completed_turn(tmp_path: Path) -> None:
    suite = build_instance(tmp_path / "suite")
    log, run_dir = tmp_path / "asked.jsonl", tmp_path / "run"
    args = ["run", str(suite), "--agent", SPY, "--agent-opt", f"log={log}", "--agent-opt", "sleep=0.5",
            "--condition", "non-coder", "--out", str(run_dir), "--quiet"]
    proc = subprocess.Popen(cli_cmd(*args), env=cli_env(), cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _completed_turns(run_dir / "run.sqlite") < 1:
        assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read()!r}"
        assert time.monotonic() < deadline, "the session made no progress"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    completed, before = _completed_turns(run_dir / "run.sqlite"), asked(log)
    with RunStore.open(run_dir) as store:
        assert not any(store.attempts(row) for row in store.plan()), "the kill must land mid-session"

    resumed = reqbench("run", "--resume", str(run_dir), "--quiet", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    with RunStore.open(run_dir) as store:
        (row,) = store.plan()
        (attempt,) = store.attempts(row)
        record = json.loads(store.to_outcome(attempt).artifacts["transcript.json"])
    messages = [t["user_message"] for t in record["turns"]]
    assert completed < len(messages), "the session had turns left after the kill"
    assert before[:completed] == messages[:completed]
    assert asked(log)[len(before):] == messages[completed:]  # resumed right after the last completed turn
    assert (attempt.status.value, attempt.result.final_f2p, attempt.result.final_p2p) == ("scored", 1.0, 1.0)
    assert record["end_reason"] == "all_resolved"
