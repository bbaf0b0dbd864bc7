"""Exports of a run: one `RunResultRow` per planned row, as JSONL (always) or Parquet (with pyarrow).

Parquet needs the optional `pyarrow` package (not a dependency of reqbench); nested fields (`result`,
`artifacts`) are stored as JSON text columns there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_bytes, atomic_write_text
from reqbench.core.store.models import RunResultRow
from reqbench.core.store.selection import ORIGINAL

if TYPE_CHECKING:  # the store calls these exports; they only need its type
    from reqbench.core.store.runstore import RunStore


def result_rows(store: RunStore, grading: str = ORIGINAL) -> list[RunResultRow]:
    """One row per planned row under the ``original`` grading (an unstarted row as ``unstarted``); under any
    other grading only the rows that grading graded (`selection.select_attempt`: never filled in from the
    original, SpecPath §4.3), so a row's number always comes from the grading it is exported under."""
    out = []
    for index, (row, attempt, n_attempts) in enumerate(store.selected_attempts(grading)):
        if attempt is None and grading != ORIGINAL:
            continue
        out.append(RunResultRow(
            row_key=row.key, task_id=row.task_id, condition=row.condition, agent=row.agent,
            repeat=row.repeat, order_index=index,
            status=attempt.status.value if attempt else "unstarted",
            attempt_no=attempt.attempt_no if attempt else None, attempts=n_attempts,
            result=attempt.result.stored() if attempt else {}, detail=attempt.detail if attempt else "",
            artifacts=dict(attempt.artifacts) if attempt else {},
            started=attempt.started if attempt else None, finished=attempt.finished if attempt else None,
            reason=attempt.reason if attempt else "", grading=attempt.grading if attempt else ORIGINAL,
            parent_attempt=attempt.parent if attempt else None))
    return out


def export_jsonl(store: RunStore, path: Path) -> int:
    """Write every planned row (selected attempt) as one JSON line; returns the number of rows."""
    rows = result_rows(store)
    text = "".join(json.dumps(r.model_dump(), sort_keys=True, ensure_ascii=False) + "\n" for r in rows)
    atomic_write_text(Path(path), text)
    return len(rows)


def export_parquet(store: RunStore, path: Path) -> int:
    """Write the same rows as Parquet (`result` and `artifacts` as JSON text)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError as exc:
        raise InputError("Parquet export needs pyarrow: install pyarrow for --parquet") from exc
    records = []
    for r in result_rows(store):
        record = r.model_dump()
        record["result"] = json.dumps(record["result"], sort_keys=True, ensure_ascii=False)
        record["artifacts"] = json.dumps(record["artifacts"], sort_keys=True)
        records.append(record)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(records), sink)
    atomic_write_bytes(Path(path), sink.getvalue().to_pybytes())
    return len(records)
