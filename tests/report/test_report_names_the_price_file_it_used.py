"""A run's report names the prices its costs were computed with: the ``REQBENCH_PRICES`` file and the run's
own ``--prices`` file, each with its path, over the built-in table -- never only "built-in table" when a
price file was in force. Real CLI subprocesses, real run store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.generic_helpers import reqbench


def test_run_report_names_the_environment_price_file_and_the_runs_prices_file(tmp_path: Path) -> None:
    table = tmp_path / "table.yaml"
    table.write_text("house: {input_per_1m: 2.0, output_per_1m: 4.0}\n")
    mine = tmp_path / "mine.yaml"
    mine.write_text("other: {input_per_1m: 1.0, output_per_1m: 3.0}\n")
    run = tmp_path / "run"
    proc = reqbench("run", "demo:specpath/slugkit", "--agent", "reference", "--condition", "direct", "--out",
                    str(run), "--prices", str(mine), "--quiet", REQBENCH_PRICES=str(table))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = reqbench("report", str(run), "--json")
    assert report.returncode == 0, report.stderr
    payload = json.loads(report.stdout)
    facts = dict(payload["run"]["provenance"]["prices"])
    assert facts["table_file"]["path"] == str(table) and facts["run_prices_from"] == f"--prices {mine}"
    shown = reqbench("report", str(run), COLUMNS="400")
    text = " ".join(shown.stdout.split())
    assert f"(from --prices {mine}) over price file {table} (REQBENCH_PRICES" in text
    assert text.count("built-in table") == 1
