"""`reqbench export`: one row per planned row (its selected attempt) as CSV, JSONL or Parquet, with the
same flat columns in every format (outcome, score, reason, cost_usd, tokens, seconds; `report.rowfacts`).

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
from reqbench.core.store.export import result_rows
from reqbench.core.store.runstore import RunStore
from reqbench.report.rowfacts import FLAT_COLUMNS, flat_facts

FORMATS = ("csv", "jsonl", "parquet")
_ORDER = ("row_key", "task_id", "condition", "agent", "repeat", "order_index", "status", *FLAT_COLUMNS,
          "attempt_no", "attempts", "started", "finished", "detail", "artifacts", "result")


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
    out = []
    for r in result_rows(store):
        record = r.model_dump()
        record.update(flat_facts(r.status, r.result, r.detail))
        out.append({k: record[k] for k in _ORDER})
    return out


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
        writer = csv.DictWriter(buf, fieldnames=list(_ORDER), lineterminator="\n")
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
