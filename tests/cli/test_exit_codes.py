"""Exit codes of `reqbench run` and `reqbench demo` when nothing (or not everything) was measured, and the
``demo:NAME`` suite spec, through the real CLI in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_names, bundled_suite, resolve_suite
from reqbench.core.errors import InputError
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite


def test_run_where_every_row_ends_invalid_exits_3_and_says_why(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "behaviour": "flaky-99"}], conditions=("A",))
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 3, proc.stderr
    assert "every row ended invalid (1 invalid of 1)" in proc.stderr
    assert "provider rate limit" in proc.stderr  # the first invalid row's reason
    assert (tmp_path / "run" / "run.sqlite").is_file()  # the run (and its report) exist all the same


def test_run_with_one_scored_row_exits_0(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "ok", "value": 1}, {"id": "bad", "behaviour": "flaky-99"}],
                        conditions=("A",))
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_run_whose_rows_are_pending_exits_0_for_resume_to_evaluate(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "behaviour": "pending"}], conditions=("A",))
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_demo_fails_when_a_suite_is_missing(tmp_path: Path) -> None:
    proc = reqbench("demo", "--out", str(tmp_path / "demo"), "--protocol", "toy",
                    TOY_DEMO_SUITE=str(tmp_path / "not-there"))
    assert proc.returncode == 1
    assert "no such suite directory" in proc.stderr and "demo failed" in proc.stderr


def test_demo_fails_when_a_row_is_pending(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}, {"id": "t2", "behaviour": "pending"}],
                        conditions=("A",))
    proc = reqbench("demo", "--out", str(tmp_path / "demo"), "--protocol", "toy", TOY_DEMO_SUITE=str(suite))
    assert proc.returncode == 1
    assert "demo failed" in proc.stderr and "1 row(s) pending" in proc.stderr


def test_bundled_suites_are_found_by_name_from_any_directory(tmp_path: Path) -> None:
    assert set(bundled_names()) >= {"journey", "pace", "specpath", "takeover"}
    assert resolve_suite("demo:specpath") == bundled_suite("specpath")
    assert resolve_suite("demo:pace/cachetools-slru").is_dir()
    assert resolve_suite(tmp_path) == tmp_path  # a path stays a path
    with pytest.raises(InputError, match="no such bundled suite"):
        resolve_suite("demo:nope")
    with pytest.raises(InputError, match="expected a bundled suite name"):
        resolve_suite("demo:../specpath")


def test_validate_accepts_a_bundled_suite_spec_and_names_the_known_ones() -> None:
    assert reqbench("validate", "demo:specpath").returncode == 0
    unknown = reqbench("validate", "demo:nope")
    assert unknown.returncode == 2 and "demo:takeover" in unknown.stderr


def test_quiet_run_prints_one_headline_line_with_the_run_directory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath/slugkit", "--agent", "reference",
                           "--quiet", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("specpath reference: FCR direct 1")
    assert lines[0].endswith(f"-> {out}") and "rows scored" in lines[0]


@pytest.mark.parametrize("argv", [
    ["regrade", "/nonexistent-run", "--timeout-rerun", "inf"],
    ["regrade", "/nonexistent-run", "--timeout-rerun", "nan"],
    ["journey", "scaffold", "/nonexistent-repo", "--timeout", "inf"],
])
def test_a_timeout_of_inf_or_nan_on_the_command_line_is_refused(argv: list[str]) -> None:
    """An infinite budget would reach the sandbox's wait (which cannot sleep forever in milliseconds)."""
    proc = subprocess.run([sys.executable, "-m", "reqbench", *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and f"Invalid value for '{argv[-2]}'" in proc.stderr, proc.stderr


@pytest.mark.parametrize("port", ["99999", "-5"])
def test_a_port_outside_0_to_65535_is_refused_before_anything_listens(port: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench", "view", "/nonexistent-run", "--port", port],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Invalid value for '--port'" in proc.stderr, proc.stderr
