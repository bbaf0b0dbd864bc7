"""`reqbench run --resume RUN_DIR` never silently ignores what the user asked for, and a run directory that
cannot take the run is refused before any validation starts. Real CLI subprocesses, real run directories.

Threats guarded: ``--resume DIR --repeats 5`` exiting 0 having run nothing new; misleading errors for a
missing run directory, a suite given in its place, ``--agent`` beside it or a value after ``--resume``;
``--out`` at an existing run refused only after minutes of admission checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resume")
    suite = write_suite(root / "suite", [{"id": "t1", "value": 1}], conditions=("A", "B"))
    proc = reqbench("run", str(suite), "--agent", "reference", "--condition", "A", "--out", str(root / "run"),
                    "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root / "run"


@pytest.mark.parametrize("change", [("--repeats", "5"), ("--condition", "B"), ("--seed", "3"),
                                    ("--agent", "null"), ("--judge", "exact"), ("--agent-opt", "x=1")])
def test_resume_with_a_run_defining_option_exits_2_and_says_how_to_extend(finished: Path,
                                                                         change: tuple[str, str]) -> None:
    before = (finished / "run.sqlite").stat().st_mtime_ns
    proc = reqbench("run", "--resume", str(finished), *change)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{change[0]} cannot change a run being resumed" in proc.stderr
    assert "reqbench study" in proc.stderr and "--out NEW_DIR" in proc.stderr
    assert (finished / "run.sqlite").stat().st_mtime_ns == before


def test_resume_alone_and_with_executor_options_still_continues(finished: Path) -> None:
    proc = reqbench("run", "--resume", str(finished), "--concurrency", "2", "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_resume_of_a_missing_run_directory_says_there_is_none(tmp_path: Path) -> None:
    proc = reqbench("run", "--resume", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert "no run directory here" in proc.stderr and "--agent is required" not in proc.stderr


def test_resume_of_a_suite_says_it_is_not_a_run_directory(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}], conditions=("A",))
    proc = reqbench("run", "--resume", str(suite))
    assert proc.returncode == 2
    assert "is not a run directory" in proc.stderr and "--out RUN_DIR --resume" in proc.stderr


def test_a_value_after_resume_is_explained(finished: Path, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}], conditions=("A",))
    proc = reqbench("run", str(suite), "--resume", str(finished))
    assert proc.returncode == 2
    assert "--resume takes no value" in proc.stderr and "unexpected extra argument" not in proc.stderr


def test_out_at_an_existing_run_is_refused_before_validation(finished: Path, tmp_path: Path) -> None:
    broken = write_suite(tmp_path / "broken", [{"id": "t1", "value": "x"}])  # fails validation
    assert "value must be an integer" in reqbench("validate", str(broken)).stdout
    proc = reqbench("run", str(broken), "--agent", "reference", "--out", str(finished))
    assert proc.returncode == 2
    assert "run directory already exists" in proc.stderr
    assert "value must be an integer" not in proc.stdout + proc.stderr
    again = reqbench("run", str(broken), "--agent", "reference", "--out", str(finished), "--resume")
    assert again.returncode == 2 and "--resume with different options" in again.stderr
