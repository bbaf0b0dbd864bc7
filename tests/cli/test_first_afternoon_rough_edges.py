"""What a new user meets in a first afternoon says what it means: run folders do not repeat the protocol,
the test suite's own plugin is not listed to a user, a report fits an 80-column terminal, a study rejudge
with nothing to vary says so, and a resumed study says what it kept and what it will run.

Real CLI subprocesses on the bundled suites (small cuts of them), real run and study directories.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.generic_helpers import cli_env, reqbench
from tests.study.helpers import write_study

pytestmark = pytest.mark.slow  # whole runs: not in `make test-quick`

SHOW = "REQBENCH_SHOW_TEST_FIXTURES"


def test_a_default_run_folder_does_not_repeat_the_protocol(tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "run", "demo:specpath", "--agent", "null",
                           "--condition", "direct", "--quiet"], capture_output=True, text=True, timeout=300,
                          env=cli_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (made,) = [p.name for p in (tmp_path / "runs").iterdir()]
    assert made.startswith("specpath-null-") and "specpath-specpath" not in made, made


def test_the_test_plugin_is_listed_only_when_asked() -> None:
    user = {SHOW: "0"}
    assert "toy" not in reqbench("--help", **user).stdout
    agents = json.loads(reqbench("agents", "--json", **user).stdout)
    assert agents and "toy-writer" not in {a["name"] for a in agents}
    assert "toy-suite" not in reqbench("schema", **user).stdout.split()
    assert reqbench("toy", "hello", "you", **user).stdout.strip() == "hello you from reqbench-toy"  # still runs
    asked = {SHOW: "1"}
    assert "toy" in reqbench("--help", **asked).stdout
    assert "toy-writer" in {a["name"] for a in json.loads(reqbench("agents", "--json", **asked).stdout)}


def test_a_pace_report_fits_an_80_column_terminal(tmp_path: Path) -> None:
    run_dir = tmp_path / "pace"
    ran = reqbench("run", "demo:pace", "--agent", "reference", "--judge", "token-overlap", "--condition", "prd",
                   "--out", str(run_dir), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stderr
    report = reqbench("report", str(run_dir), COLUMNS="80")
    assert report.returncode == 0, report.stderr
    assert "symptom_signal: all 0" in report.stdout
    wide = [line for line in report.stdout.splitlines() if len(line) > 80]
    assert wide == []


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("rough-study")
    spec = write_study(tmp / "study.yaml", [{"name": "ref", "agent": "reference"}], conditions=["direct"])
    ran = reqbench("study", "run", str(spec), "--out", str(tmp / "sp"), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stderr
    return tmp / "sp"


def test_rejudging_a_study_without_a_judge_says_there_is_nothing_to_vary(study: Path) -> None:
    db = study / "runs" / "ref" / "run.sqlite"
    before = db.read_bytes()
    proc = reqbench("study", "rejudge", str(study), "--times", "2")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "nothing to vary" in proc.stderr and "never with a judge" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "re-graded" not in proc.stdout
    assert db.read_bytes() == before  # no grading added
    named = reqbench("study", "rejudge", str(study), "--times", "1", "--config", "ref")
    assert named.returncode == 2 and "configuration 'ref': nothing to vary" in named.stderr


def test_a_resumed_study_says_what_it_kept_and_what_it_will_run(study: Path) -> None:
    proc = reqbench("study", "run", "--resume", str(study), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "resuming: 3 finished row(s) kept, 0 to run (ref 3 kept, 0 to run)" in proc.stdout
