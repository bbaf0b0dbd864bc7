"""The barrier between repeats is a protocol's rule, not core's.

Core used to apply SpecPath's "barrier between repeats" to every protocol, so ``--repeats 3 --concurrency 4``
on a suite of 3 tasks never had more than 3 rows in flight. Now PACE and SpecPath-with-the-barrier-lifted
fill the concurrency across repeats; SpecPath keeps its barrier by default, records the choice in the run's
provenance and says once when the barrier keeps rows in flight below ``--concurrency``. In-flight counts come
from the attempts' recorded start and end times, never from wall time. Real CLI, real sandboxed agent.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from reqbench.core.store import RunStore
from tests.security.redteam import cli, trimmed_suite

pytestmark = pytest.mark.slow  # whole runs with a sandboxed `sleep 1` agent

SLEEPER = ["--agent", "command", "--agent-opt", "template=sleep 1", "--quiet"]


def max_in_flight(run_dir: Path) -> int:
    """The most attempts whose recorded [start, end) intervals overlap."""
    conn = sqlite3.connect(run_dir / "run.sqlite")
    spans = [(datetime.fromisoformat(s), datetime.fromisoformat(e))
             for s, e in conn.execute("SELECT started, finished FROM attempts WHERE kind = 'run'")]
    conn.close()
    return max(sum(start <= t < end for start, end in spans) for t, _ in spans)


def test_pace_repeats_run_side_by_side_up_to_the_concurrency(tmp_path: Path) -> None:
    proc = cli(["run", "demo:pace", *SLEEPER, "--repeats", "3", "--concurrency", "4",
                "--out", str(tmp_path / "run")], dict(os.environ), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert max_in_flight(tmp_path / "run") > 3  # the demo suite has 3 tasks: more than one repeat in flight
    assert "barrier" not in proc.stdout + proc.stderr


def test_specpath_keeps_its_barrier_says_so_once_and_lifts_it_on_request(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")  # one task, one condition: one row per repeat
    args = [*SLEEPER, "--condition", "direct", "--repeats", "3", "--concurrency", "3"]
    kept = cli(["run", str(suite), *args, "--out", str(tmp_path / "kept")], dict(os.environ), tmp_path)
    lifted = cli(["run", str(suite), *args, "--agent-opt", "specpath.barrier_between_repeats=false",
                  "--out", str(tmp_path / "lifted")], dict(os.environ), tmp_path)
    assert kept.returncode == 0 and lifted.returncode == 0, kept.stderr + lifted.stderr
    said = (kept.stdout + kept.stderr).count("barrier between repeats")
    assert said == 1 and "specpath.barrier_between_repeats=false" in kept.stdout + kept.stderr
    assert "barrier" not in lifted.stdout + lifted.stderr
    assert max_in_flight(tmp_path / "kept") == 1
    assert max_in_flight(tmp_path / "lifted") > 1
    for name, barrier in (("kept", True), ("lifted", False)):
        with RunStore.open(tmp_path / name, read_only=True) as store:
            assert store.meta.provenance["schedule"]["barrier_between_repeats"] is barrier
