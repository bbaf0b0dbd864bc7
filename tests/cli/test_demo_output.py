"""`reqbench demo` prints one line per run (where it is, rows scored) and the summary; `--verbose` adds every
report; `report --html` says where it wrote; tables of zeros fold in the terminal. Real CLI subprocesses."""

from __future__ import annotations

from pathlib import Path

from reqbench.report.tables import TableData
from reqbench.report.zero_fold import fold_zeros
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite


def test_demo_prints_where_each_run_is_and_the_summary_and_verbose_adds_the_reports(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}, {"id": "t2", "value": 3}])
    out = tmp_path / "demo"
    proc = reqbench("demo", "--out", str(out), "--protocol", "toy", TOY_DEMO_SUITE=str(suite), COLUMNS="100")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"✓ toy reference: 4/4 rows scored  {out / 'toy-suite-reference'}" in lines
    assert "demo summary" in proc.stdout and "reqbench demo --verbose" in proc.stdout
    assert "rows by condition" not in proc.stdout and len(lines) < 30
    verbose = reqbench("demo", "--out", str(out), "--protocol", "toy", "--verbose", TOY_DEMO_SUITE=str(suite),
                       COLUMNS="100")
    assert verbose.returncode == 0, verbose.stderr
    assert "run directory:" in verbose.stdout and "rows by condition" in verbose.stdout
    assert len(verbose.stdout.splitlines()) > len(lines)

    html = tmp_path / "r.html"
    report = reqbench("report", str(out / "toy-suite-reference"), "--html", str(html))
    assert report.returncode == 0 and f"wrote the HTML report to {html}" in report.stdout and html.is_file()
    as_json = reqbench("report", str(out / "toy-suite-reference"), "--json", "--html", str(html))
    assert as_json.stdout.lstrip().startswith("{") and "wrote the HTML report" in as_json.stderr


def test_zero_columns_leave_the_table_and_a_table_of_zeros_is_one_line() -> None:
    table = TableData("rows", ["condition", "scored", "pending", "invalid"], [["A", "2", "0", "0"],
                                                                             ["B", "1", "0", "0.0"]])
    folded = fold_zeros(table)
    assert isinstance(folded, TableData)
    assert folded.title == "rows (all 0: pending, invalid)" and folded.columns == ["condition", "scored"]
    assert folded.rows == [["A", "2"], ["B", "1"]]
    assert fold_zeros(TableData("signals", ["", "a", "b"], [["x", "0", "0%"]])) == "signals: all 0 (a, b)"
    kept = TableData("t", ["", "v"], [["x", "0"], ["y", "—"]])
    assert fold_zeros(kept) is kept  # an unknown value is not a zero
