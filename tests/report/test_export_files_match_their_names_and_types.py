"""Exported files are what their names say, with typed columns: a Parquet file is Parquet whatever option
wrote it, its ``cost_usd`` column is a float and ``tokens`` an integer (even where every row is null), and
token counts print as integers (CSV, the viewer), never ``4730.0`` or ``1.008e+04``.

Threats guarded: a reader that trusts a file's suffix (pandas, DuckDB) meets CSV under a Parquet name; a
notebook that sums an object column; a page that shows a count in scientific notation. Real runs, the real
CLI in subprocesses, the real viewer on 127.0.0.1.
"""

from __future__ import annotations

import csv
import threading
from pathlib import Path

import pytest

from reqbench.core.llm.gateway import ModelCall, StoreRecorder
from reqbench.core.store import RunStore
from reqbench.report.viewer import make_server
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite
from tests.study.helpers import write_study
from tests.support.viewer_client import logged_in


def _call(row: str, prompt: int, completion: int, cost: float | None) -> ModelCall:
    return ModelCall(row_key=row, step=1, api="chat", model="m", request={"messages": [prompt]}, response={},
                     status=200, prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost,
                     source="upstream")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real toy run of three rows; two made model calls (4,730 and 10,080 tokens), one none."""
    tmp = tmp_path_factory.mktemp("typed-export")
    suite = write_suite(tmp / "suite", [{"id": t, "value": 1} for t in ("a", "b", "c")], conditions=("A",))
    ran = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp / "run"), "--quiet")
    assert ran.returncode == 0, ran.stderr
    with RunStore.open(tmp / "run") as store:
        a, b, _ = (r.key for r in store.plan())
        recorder = StoreRecorder.for_store(store)
        for made in (_call(a, 4000, 730, 0.01), _call(b, 10000, 80, 0.02)):
            recorder.record(made)
    return tmp / "run"


def test_tokens_are_integers_in_csv_and_typed_columns_in_parquet(run_dir: Path, tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow.parquet", reason="Parquet export needs the parquet extra")
    assert reqbench("export", str(run_dir), "--out", str(tmp_path / "rows.csv")).returncode == 0
    with open(tmp_path / "rows.csv", newline="") as fh:
        tokens = sorted(row["tokens"] for row in csv.DictReader(fh))
    assert tokens == ["", "10080", "4730"]
    assert reqbench("export", str(run_dir), "--out", str(tmp_path / "rows.parquet")).returncode == 0
    schema = pa.read_schema(tmp_path / "rows.parquet")
    assert str(schema.field("tokens").type) == "int64" and str(schema.field("cost_usd").type) == "double"
    assert str(schema.field("score").type) == "double" and str(schema.field("repeat").type) == "int64"
    assert str(schema.field("result").type) == "string"
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_parquet(tmp_path / "rows.parquet")
    assert frame["cost_usd"].dtype.kind == "f" and frame["tokens"].dtype.kind in "if"
    assert frame["seconds"].dtype.kind == "f"  # null in every toy row: typed all the same


def test_a_file_name_naming_another_format_is_refused(run_dir: Path, tmp_path: Path) -> None:
    proc = reqbench("export", str(run_dir), "--out", str(tmp_path / "rows.csv"), "--format", "parquet")
    assert proc.returncode == 2 and not (tmp_path / "rows.csv").exists()
    assert "rows.csv" in proc.stderr and "rows.parquet" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_viewer_prints_token_counts_as_integers(run_dir: Path) -> None:
    server = make_server(run_dir.parent, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = logged_in(server.url)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        status, _, runs = client.get(base + "/runs")
        assert status == 200 and "<td>14810</td>" in runs.decode()
        status, _, rows = client.get(base + "/run/run/rows")
        assert status == 200 and "<td>10080</td>" in rows.decode() and "e+04" not in rows.decode()
    finally:
        server.shutdown()
        server.server_close()
        server.viewer.close()


@pytest.mark.slow
def test_study_report_writes_the_format_its_file_names(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="Parquet export needs the parquet extra")
    spec = write_study(tmp_path / "study.yaml", [{"name": "ref", "agent": "reference"},
                                                 {"name": "nothing", "agent": "null"}], conditions=["direct"])
    ran = reqbench("study", "run", str(spec), "--out", str(tmp_path / "sp"), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "rows.parquet"
    assert reqbench("study", "report", str(tmp_path / "sp"), "--csv", str(out)).returncode == 0
    assert out.read_bytes()[:4] == b"PAR1"
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    assert table.num_rows == 6 and str(table.schema.field("tokens").type) == "int64"
    refused = reqbench("study", "report", str(tmp_path / "sp"), "--csv", str(tmp_path / "rows.xlsx"))
    assert refused.returncode == 2 and not (tmp_path / "rows.xlsx").exists()
    assert ".xlsx" in refused.stderr and "Traceback" not in refused.stderr
