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
from types import UnionType
from typing import Any, Union, get_args, get_origin

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
SUFFIXES = {"csv": "csv", "jsonl": "jsonl", "parquet": "parquet", "pq": "parquet"}
"""File suffix -> the format it names."""


def format_for(path: Path, fmt: str | None, item: str = "--out") -> str:
    """The requested format, else the one the file suffix names (.csv, .parquet; anything else JSONL).
    A suffix that names another format than the requested one is refused (a CSV under a Parquet name
    breaks every reader that trusts the name)."""
    named = SUFFIXES.get(Path(path).suffix.lower().lstrip("."))
    if fmt is None:
        return named or "jsonl"
    if fmt not in FORMATS:
        raise InputError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)} or atif",
                         item="--format")
    if named is not None and named != fmt:
        raise InputError(f"the file name says {named} but the format asked for is {fmt}; name the file "
                         f"{Path(path).with_suffix('.' + fmt).name} or leave the format to its suffix",
                         file=str(path), item=item)
    return fmt


def records(store: RunStore, grading: str = "original") -> list[dict[str, Any]]:
    """Every planned row (its selected attempt under `grading`; under a grading other than ``original`` only the
    rows it graded, `core.store.export.result_rows`) with its flat facts, as `RunResultRow` dumps (validated
    against the schema)."""
    totals = StoreRecorder.for_store(store).totals()
    model = store.result_model
    return [RunResultRow.model_validate({**r.model_dump(), **row_facts(r.status, r.reason, model.of(r.result),
                                                                         r.detail, totals.get(r.row_key))}).model_dump()
            for r in result_rows(store, grading)]


def _text(value: Any) -> Any:
    """Nested values (result, artifacts, agent options) as JSON text; anything else unchanged."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if isinstance(value, dict | list) else value


def _arrow_type(annotation: Any) -> Any:
    """The Parquet column type of a schema field: int64, float64, bool or string (text, literals and
    nested values as JSON text), so a column is typed even when every row holds null."""
    import pyarrow as pa

    kinds = {a for a in (get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,))
             if a is not type(None)}
    for python, arrow in ((bool, pa.bool_()), (int, pa.int64()), (float, pa.float64())):
        if kinds == {python}:
            return arrow
    return pa.string()


ROW_TYPES: dict[str, Any] = {name: f.annotation for name, f in RunResultRow.model_fields.items()}
"""Column -> its Python type, for the Parquet schema."""


def write_rows(path: Path, fmt: str, rows: list[dict[str, Any]], types: dict[str, Any]) -> None:
    """Write `rows` (the columns of `types`, in its order) to `path` in `fmt`: JSONL keeps nested values,
    CSV and Parquet hold them as JSON text; Parquet columns are typed from `types`."""
    columns = list(types)
    if fmt == "jsonl":
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: _text(v) for k, v in r.items()} for r in rows)
        atomic_write_text(path, buf.getvalue())
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ModuleNotFoundError as exc:
            raise InputError("Parquet export needs pyarrow: pip install 'reqbench[parquet]'",
                             item="--format parquet") from exc
        schema = pa.schema([(c, _arrow_type(types[c])) for c in columns])
        table = pa.Table.from_pylist([{k: _text(v) for k, v in r.items()} for r in rows], schema=schema)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        atomic_write_bytes(path, sink.getvalue().to_pybytes())


def export_rows(store: RunStore, path: Path, fmt: str) -> int:
    """Write the rows to `path` in `fmt`; returns how many rows were written."""
    rows = records(store)
    write_rows(path, fmt, rows, ROW_TYPES)
    return len(rows)
