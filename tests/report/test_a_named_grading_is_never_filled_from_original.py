"""A report (and an export) of a grading other than ``original`` covers only the rows that grading graded and
names that denominator: a timeout re-run is "never pooled with the 1,200-second results" (SpecPath §4.3, "Run
processing"), so rows it did not re-run are not filled in from the original grading.

Hand-computed, one family (slugkit), condition direct, three repeats:
  original:   r0 success, r1 failure, r2 failure (agent_timeout)   -> FCR direct 1/3
  rerun-2400: r2 re-run, success                                   -> FCR direct 1/1 (1 of 3 planned rows)
Pooling the re-run into the original rows would give 2/3 -- the number this rule forbids.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.export import result_rows

runner = CliRunner()
FCR = "FCR by condition (task-macro)"


def _outcome(success: bool, reason: str) -> RowOutcome:
    return RowOutcome(RowStatus.SCORED, {"outcome": "success" if success else "failure",
                                         "signature": [1, 1] if success else [1, 0], "config": "spy"},
                      reason=reason)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    meta = RunMeta(suite_path=str(bundled_suite("specpath/slugkit")), protocol="specpath", created=utc_now(),
                   reqbench_version="t", options={"agent": "spy", "conditions": ["direct"], "repeats": 3})
    rows = [Row("slugkit", "direct", "spy", r) for r in range(3)]
    with RunStore.create(tmp_path / "run", meta) as store:
        store.add_plan(rows)
        store.record_attempt(rows[0], _outcome(True, "passed"))
        store.record_attempt(rows[1], _outcome(False, "checks_failed"))
        timed_out = store.record_attempt(rows[2], _outcome(False, "agent_timeout"))
        store.add_grading("rerun-2400", "exact", True, "timeout re-run at 2400 s")
        store.record_attempt(rows[2], _outcome(True, "passed"), parent=timed_out.attempt_no, grading="rerun-2400")
    return tmp_path / "run"


def _report(run: Path, *args: str) -> dict:
    res = runner.invoke(app, ["report", str(run), "--json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_the_rerun_grading_reports_only_the_row_it_reran(run_dir: Path) -> None:
    primary = _report(run_dir)
    assert primary["specpath"][FCR]["direct"]["FCR"]["value"] == pytest.approx(1 / 3)
    rerun = _report(run_dir, "--grading", "rerun-2400")
    assert rerun["specpath"][FCR]["direct"]["FCR"]["value"] == pytest.approx(1.0)  # 1/1, not the pooled 2/3
    assert (rerun["run"]["rows_by_grading"], rerun["run"]["planned_rows"]) == ({"rerun-2400": 1}, 3)
    assert rerun["run"]["attrition"]["all"]["rows"] == 1
    overview = {g["label"]: g["headline"] for g in rerun["run"]["gradings"]}
    assert overview["rerun-2400"]["FCR direct"] == pytest.approx(1.0)
    assert overview["original"]["FCR direct"] == pytest.approx(1 / 3)


def test_the_heading_names_the_denominator_and_the_rows_left_out(run_dir: Path) -> None:
    for columns in ("80", "200"):  # an 80-column terminal too: a rule would cut the denominator off
        shown = subprocess.run([sys.executable, "-m", "reqbench", "report", str(run_dir), "--grading", "rerun-2400"],
                               capture_output=True, text=True, env={**os.environ, "COLUMNS": columns},
                               timeout=120).stdout
        assert "grading rerun-2400: 1 of 3 planned rows (the rows it graded; the other 2 are in grading " \
               "original only)" in " ".join(shown.split()), (columns, shown)
    assert "not in grading" in shown  # rows by condition: the two rows without a re-run are not "unstarted"
    primary = runner.invoke(app, ["report", str(run_dir)], env={"COLUMNS": "200"}).output
    assert "grading original" in primary and "not in grading" not in primary


def test_the_export_of_a_grading_holds_only_its_rows(run_dir: Path) -> None:
    with RunStore.open(run_dir, read_only=True) as store:
        original = result_rows(store)
        rerun = result_rows(store, "rerun-2400")
    assert [(r.repeat, r.grading, r.reason) for r in original] == [
        (0, "original", "passed"), (1, "original", "checks_failed"), (2, "original", "agent_timeout")]
    assert [(r.repeat, r.grading, r.reason) for r in rerun] == [(2, "rerun-2400", "passed")]
