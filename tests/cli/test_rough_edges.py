"""The CLI rough edges of issue 19, each with a test named after it."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reqbench.cli.generic_run import resume_command, run_slug
from reqbench.cli.main import app
from reqbench.cli.protocol_lookup import all_protocols
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.tables import TableData, fit_width
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import ToyProtocol, write_suite

runner = CliRunner()


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    suite = write_suite(root / "suite", [{"id": "t1", "value": 1}, {"id": "t2", "value": 3}], conditions=("A",))
    meta = RunMeta(suite_path=str(suite), protocol="toy", options={"agent": "reference", "seed": 1},
                   created=utc_now(), reqbench_version="0")
    with RunStore.create(root / "run", meta) as store:
        execute_run(store, ToyProtocol().load(suite), RunOptions(), max_attempts=1)
    return root / "run"


def _demo_names() -> set[str]:
    return {run_slug(p.name, Path(suite), options.agent) for p in all_protocols() for suite, options in p.demo_runs()}


def test_help_examples_exist() -> None:
    """Every `runs/demo/NAME` a help text shows is a directory `reqbench demo` writes."""
    names = _demo_names()
    for command in ("report", "export", "view", "doctor", "run", "demo"):
        text = runner.invoke(app, [command, "--help"], terminal_width=200).stdout
        for name in re.findall(r"runs/demo/([A-Za-z0-9._-]+)", text):
            assert name in names, f"`reqbench {command} --help` names runs/demo/{name}, not a demo run"


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_format_csv_jsonl_parquet(toy_run: Path, tmp_path: Path, fmt: str) -> None:
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"rows.{fmt}"
    proc = reqbench("export", str(toy_run), "--out", str(out))  # the suffix picks the format
    assert proc.returncode == 0, proc.stderr
    if fmt == "csv":
        rows = list(csv.DictReader(out.open()))
    elif fmt == "jsonl":
        rows = [json.loads(line) for line in out.read_text().splitlines()]
    else:
        import pyarrow.parquet as pq  # type: ignore[import-not-found]
        rows = pq.read_table(out).to_pylist()
    assert len(rows) == 2
    for row in rows:
        assert {"outcome", "protocol_outcome", "score", "reason", "detail", "cost_usd", "tokens", "seconds"} <= set(row)
        assert row["outcome"] in ("success", "failure")


def test_export_csv_out_is_not_jsonl(toy_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    assert reqbench("export", str(toy_run), "--out", str(out)).returncode == 0
    assert out.read_text().startswith("row_key,")
    forced = tmp_path / "rows.txt"
    assert reqbench("export", str(toy_run), "--out", str(forced), "--format", "csv").returncode == 0
    assert forced.read_text().startswith("row_key,")
    bad = reqbench("export", str(toy_run), "--out", str(forced), "--format", "xlsx")
    assert bad.returncode == 2 and "csv, jsonl, parquet" in bad.stderr


def test_demo_unknown_protocol_exits_2(tmp_path: Path) -> None:
    proc = reqbench("demo", "--protocol", "nosuch", "--out", str(tmp_path / "d"))
    assert proc.returncode == 2
    assert "unknown protocol 'nosuch'" in proc.stderr and "takeover" in proc.stderr
    assert not (tmp_path / "d").exists()


def test_corrupt_run_sqlite_exits_2(toy_run: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(toy_run, broken)
    db = broken / "run.sqlite"
    db.write_bytes(db.read_bytes()[:3000])
    for command in ("report", "doctor"):
        proc = reqbench(command, str(broken))
        assert proc.returncode == 2, proc.stderr
        assert "corrupt or truncated" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_artifact_blob_exits_2(toy_run: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(toy_run, broken)
    blob = next(p for p in (broken / "artifacts").rglob("*") if p.is_file())
    blob.unlink()
    proc = reqbench("doctor", str(broken))
    assert proc.returncode == 2 and "missing" in proc.stdout + proc.stderr


def test_doctor_verifies_blobs_present_and_hash_correct(toy_run: Path, tmp_path: Path) -> None:
    ok = reqbench("doctor", str(toy_run))
    assert ok.returncode == 0 and "hash-correct" in ok.stdout
    tampered = tmp_path / "tampered"
    shutil.copytree(toy_run, tampered)
    blob = next(p for p in (tampered / "artifacts").rglob("*") if p.is_file())
    blob.write_bytes(b"forged")
    proc = reqbench("doctor", str(tampered))
    assert proc.returncode == 2 and "does not match its hash" in proc.stdout


def test_report_fits_80_columns(toy_run: Path) -> None:
    proc = reqbench("report", str(toy_run), COLUMNS="80")
    assert proc.returncode == 0, proc.stderr
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80
    wide = TableData("wide", ["", *(f"metric_number_{i}" for i in range(12))],
                     [[f"row{r}", *("0.1234" for _ in range(12))] for r in range(3)])
    parts = fit_width(wide, 80)
    assert len(parts) == 1 and parts[0].columns == ["", "row0", "row1", "row2"]  # transposed
    many = TableData("many", wide.columns, [[f"condition-{r}", *("0.12" for _ in range(12))] for r in range(20)])
    assert all(len(p.columns) < len(many.columns) for p in fit_width(many, 80))  # split, label repeated


def test_ctrl_c_prints_how_to_resume(tmp_path: Path) -> None:
    assert resume_command(Path("runs/x y")) == "reqbench run --resume 'runs/x y'"
    import signal
    import subprocess
    import time

    from tests.cli.generic_helpers import cli_cmd, cli_env
    from tests.core.toy_protocol import write_suite

    suite = write_suite(tmp_path / "suite", [{"id": f"t{i}"} for i in range(6)], sleep=0.5)
    out = tmp_path / "run"
    proc = subprocess.Popen(cli_cmd("run", str(suite), "--agent", "reference", "--out", str(out), "--quiet"),
                            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / "run.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)  # at least one row finished
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert f"reqbench run --resume {out}" in " ".join(err.split())


@pytest.mark.parametrize(("content", "expected"), [
    (b"protocol: specpath\nfamilies: [a, b\n", "YAML syntax error at line 3, column 1"),
    (b"protocol: specpath\nname: \xff\xfe\n", "not valid UTF-8 at line 2, column 7"),
    (b"protocol: nosuch\n", "unknown protocol 'nosuch'; known protocols: "),
])
def test_suite_errors_yaml_utf8_unknown_protocol(tmp_path: Path, content: bytes, expected: str) -> None:
    (tmp_path / "suite.yaml").write_bytes(content)
    proc = reqbench("validate", str(tmp_path))
    assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
