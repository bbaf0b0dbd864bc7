"""A run killed with SIGKILL loses nothing and `--resume` finishes it exactly once per row.

Real subprocess, real SQLite: the first `reqbench run` is killed while rows are in flight; the resumed
run must re-run only rows without a stored attempt, and end identical to an uninterrupted run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from reqbench.core.execute.types import Row
from reqbench.core.store import RunStore, result_rows
from reqbench.report.run_report import build_payload
from tests.cli.generic_helpers import REPO, attempt_count, cli_cmd, cli_env, reqbench
from tests.core.toy_protocol import ToyProtocol, markers, write_suite

N_TASKS = 10





def _stable(run_dir: Path) -> tuple[list[dict[str, object]], dict[str, object]]:
    """Exported rows without wall-clock fields, and the report payload without run metadata."""
    with RunStore.open(run_dir) as store:
        rows = [r.model_dump(exclude={"started", "finished"}) for r in result_rows(store)]
        payload = build_payload(store, ToyProtocol().load(Path(store.meta.suite_path)))
    return rows, {"toy": payload["toy"], "counts": payload["run"]["counts"]}


def test_sigkill_then_resume_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    tasks = [{"id": f"t{i}", "value": i} for i in range(N_TASKS)]
    suite = write_suite(tmp_path / "suite", tasks, sleep=0.3, conditions=("A",))
    run_dir = tmp_path / "run"
    args = ["run", str(suite), "--agent", "reference", "--out", str(run_dir), "--concurrency", "2", "--quiet"]

    proc = subprocess.Popen(cli_cmd(*args), env=cli_env(), cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while attempt_count(run_dir / "run.sqlite") < 3:
        assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read()!r}"
        assert time.monotonic() < deadline, "run made no progress"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    with RunStore.open(run_dir) as store:
        before = {row.key for row in store.plan() if store.attempts(row)}
    assert 3 <= len(before) < N_TASKS, "the kill must land mid-run"

    resumed = reqbench(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr

    rows = [Row(f"t{i}", "A", "reference", 0) for i in range(N_TASKS)]
    with RunStore.open(run_dir) as store:
        assert [len(store.attempts(r)) for r in rows] == [1] * N_TASKS  # none lost, none duplicated
    for row in rows:
        if row.key in before:
            assert markers(suite, row) == 1, f"{row.key} finished before the kill but ran again"
        else:
            assert 1 <= markers(suite, row) <= 2  # at most once more than the attempt killed in flight

    clean_suite = write_suite(tmp_path / "clean_suite", tasks, sleep=0.0, conditions=("A",))
    clean_run = tmp_path / "clean"
    clean = reqbench("run", str(clean_suite), "--agent", "reference", "--out", str(clean_run), "--quiet")
    assert clean.returncode == 0, clean.stderr
    # the suites differ only by path and sleep, which do not enter the results
    assert _stable(run_dir) == _stable(clean_run)
    assert _stable(run_dir)[1]["counts"] == {
        "planned": N_TASKS, "scored": N_TASKS, "pending": 0, "invalid": 0, "unstarted": 0,
        "unfinished": 0, "attempts": N_TASKS}
