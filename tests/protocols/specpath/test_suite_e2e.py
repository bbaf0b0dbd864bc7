"""The bundled suite end to end: `reqbench run demo:specpath --agent reference`, killed with SIGKILL
mid-run and resumed, ends with every row scored exactly once and the expected results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from reqbench.core.bundled import bundled_suite
from reqbench.core.store.runstore import RunStore
from reqbench.protocols.specpath.models import ALL_CONDITIONS
from reqbench.protocols.specpath.results import results_from_run

SUITE = bundled_suite("specpath")


def _attempts(run_dir: Path) -> int:
    if not (run_dir / "run.sqlite").is_file():
        return 0
    try:
        with RunStore.open(run_dir, read_only=True) as store:
            return store.counts()["attempts"]
    except Exception:  # the database may be mid-creation
        return 0


def test_bundled_matrix_survives_sigkill_and_resume_gives_the_full_result(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "reqbench.cli.main", "run", str(SUITE), "--agent", "reference",
           "--out", str(run_dir), "--quiet", "--concurrency", "2", "--seed", "20260729"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while _attempts(run_dir) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _attempts(run_dir)
    assert 0 < done_before < 21, "the kill should land mid-run"
    resumed = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    with RunStore.open(run_dir, read_only=True) as store:
        counts = store.counts()
    assert counts["planned"] == counts["scored"] == counts["attempts"] == 21
    rows = results_from_run(run_dir)
    assert sorted((r.family, r.condition) for r in rows) == sorted(
        (f, c) for f in ("durations", "kvconf", "slugkit") for c in ALL_CONDITIONS)
    assert all(r.outcome == "success" and r.signature == (1, 1, 1, 1) for r in rows)
    stats = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "stats", str(run_dir),
                            "--json"], capture_output=True, text=True, timeout=120)
    summary = json.loads(stats.stdout)
    assert all(v["estimate"] == 1.0 and v["support"] == 3 for v in summary["fcr"].values())
    assert summary["blocks"] == {"possible": 3, "complete": 3, "eligible": 3}
    assert summary["cpv"]["any"]["estimate"] == 0.0 and summary["cpv"]["any"]["eligible"] == 3
