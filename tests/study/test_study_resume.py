"""A study killed with SIGKILL loses nothing, duplicates nothing, and `study run --resume` finishes it.

Real subprocess, real SQLite, the toy protocol (installed plugin: every attempt leaves a marker file, so
re-runs are counted). Two configurations interleave; the kill lands while rows are in flight.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import yaml

from reqbench.core.execute.types import Row
from reqbench.core.store import RunStore
from tests.cli.generic_helpers import REPO, attempt_count, cli_cmd, cli_env, reqbench
from tests.core.toy_protocol import markers, write_suite

N_TASKS = 8
CONFIGS = {"ref": "reference", "nothing": "null"}





def _finished(out: Path) -> int:
    return sum(attempt_count(out / "runs" / name / "run.sqlite") for name in CONFIGS)


def _stored(out: Path) -> dict[str, list[tuple[object, ...]]]:
    found: dict[str, list[tuple[object, ...]]] = {}
    for name in CONFIGS:
        with RunStore.open(out / "runs" / name, read_only=True) as store:
            found[name] = sorted((a.row_key, a.attempt_no, a.started, a.finished, a.status.value)
                                 for row in store.plan() for a in store.attempts(row))
    return found


def test_study_sigkill_then_resume_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": f"t{i}", "value": i} for i in range(N_TASKS)], sleep=0.3,
                        conditions=("A",))
    spec = tmp_path / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": str(suite), "configurations": [
        {"name": name, "agent": agent} for name, agent in CONFIGS.items()]}))
    out = tmp_path / "study"
    proc = subprocess.Popen(cli_cmd("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet"),
                            env=cli_env(), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _finished(out) < 3:
            assert proc.poll() is None, f"study ended before it could be killed: {proc.stderr.read()!r}"
            assert time.monotonic() < deadline, "study made no progress"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything the killed driver left behind (its own group)
        except ProcessLookupError:
            pass
    assert proc.returncode == -signal.SIGKILL
    before = _stored(out)
    done_before = {key for rows in before.values() for key, *_ in rows}
    assert 3 <= len(done_before) < N_TASKS * len(CONFIGS), "the kill must land mid-study"

    resumed = reqbench("study", "run", "--resume", str(out), "--quiet", timeout=180)
    assert resumed.returncode == 0, resumed.stderr

    after = _stored(out)
    for name, agent in CONFIGS.items():
        assert set(before[name]) <= set(after[name])  # nothing stored before the kill changed or vanished
        rows = [Row(f"t{i}", "A", agent, 0) for i in range(N_TASKS)]
        with RunStore.open(out / "runs" / name, read_only=True) as store:
            assert [len(store.attempts(r)) for r in rows] == [1] * N_TASKS  # none lost, none duplicated
        for row in rows:
            ran = markers(suite, row)
            assert ran == 1 if row.key in done_before else 1 <= ran <= 2, row.key

    again = reqbench("study", "run", "--resume", str(out), "--quiet")
    assert again.returncode == 0, again.stderr
    assert _stored(out) == after  # a finished study runs nothing
