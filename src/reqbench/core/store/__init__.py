"""SQLite run store + content-addressed artifacts (DESIGN §6).

Public surface: `RunStore` (create/open, plan, attempts, selection, cache, judge calls), `RunMeta`,
`RunResultRow`, `JudgeCall`, the selection rule (`select_attempt`, `next_step`) and the exports.

The exports are imported on first use (`reqbench export`, the report): a run writes none, and they are not
on the way to its first row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reqbench.core.lazy import lazy_attributes
from reqbench.core.store.models import JudgeCall, RunMeta, RunResultRow
from reqbench.core.store.runstore import DB_NAME, RunStore, is_run_dir, utc_now
from reqbench.core.store.schema import SCHEMA_VERSION
from reqbench.core.store.selection import (
    DEFAULT_MAX_ATTEMPTS,
    Attempt,
    NextStep,
    next_step,
    select_attempt,
)

if TYPE_CHECKING:
    from reqbench.core.store.export import export_jsonl, export_parquet, result_rows

__getattr__ = lazy_attributes(__name__, {name: "reqbench.core.store.export"
                                         for name in ("export_jsonl", "export_parquet", "result_rows")})

__all__ = [
    "DB_NAME", "DEFAULT_MAX_ATTEMPTS", "SCHEMA_VERSION", "Attempt", "JudgeCall", "NextStep", "RunMeta",
    "RunResultRow", "RunStore", "export_jsonl", "export_parquet", "is_run_dir", "next_step",
    "result_rows", "select_attempt", "utc_now",
]
