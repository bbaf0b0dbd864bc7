"""`reqbench export`: one row per planned row (its selected attempt) as CSV, JSONL or Parquet: the fields of
`RunResultRow` in its order (`reqbench schema run-result-row`), the flat columns meaning the same for
every protocol (`report.rowfacts`: outcome, protocol_outcome, score, reason, detail, cost_usd, tokens,
seconds).

JSONL keeps `result` and `artifacts` as nested objects; CSV and Parquet hold them as JSON text.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_bytes, atomic_write_text
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.export import result_rows
from reqbench.core.store.models import RunResultRow
from reqbench.core.store.runstore import RunStore
from reqbench.report.rowfacts import row_facts

FORMATS = ("csv", "jsonl", "parquet")
COLUMNS = tuple(RunResultRow.model_fields)
"""The export's columns: exactly the schema's properties, in order."""


def format_for(path: Path, fmt: str | None) -> str:
    """The requested format, else the one the file suffix names (.csv, .parquet; anything else JSONL)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)} or atif",
                             item="--format")
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    return {"csv": "csv", "parquet": "parquet", "pq": "parquet"}.get(suffix, "jsonl")


def records(store: RunStore) -> list[dict[str, Any]]:
    """Every planned row with its flat facts, as `RunResultRow` dumps (validated against the schema)."""
    totals = StoreRecorder.for_store(store).totals()
    return [RunResultRow.model_validate({**r.model_dump(), **row_facts(r.status, r.reason, r.result, r.detail,
                                                                         totals.get(r.row_key))}).model_dump()
            for r in result_rows(store)]


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "result": json.dumps(record["result"], sort_keys=True, ensure_ascii=False),
            "artifacts": json.dumps(record["artifacts"], sort_keys=True)}


def export_rows(store: RunStore, path: Path, fmt: str) -> int:
    """Write the rows to `path` in `fmt`; returns how many rows were written."""
    rows = records(store)
    if fmt == "jsonl":
        atomic_write_text(path, "".join(json.dumps(r, sort_keys=False, ensure_ascii=False) + "\n" for r in rows))
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(_flat(r) for r in rows)
        atomic_write_text(path, buf.getvalue())
    else:
        try:
            import pyarrow as pa  # type: ignore[import-not-found]
            import pyarrow.parquet as pq  # type: ignore[import-not-found]
        except ModuleNotFoundError as exc:
            raise InputError("Parquet export needs pyarrow: pip install 'reqbench[parquet]'",
                             item="--format parquet") from exc
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pylist([_flat(r) for r in rows]), sink)
        atomic_write_bytes(path, sink.getvalue().to_pybytes())
    return len(rows)
