"""SQLite run store + content-addressed artifacts (DESIGN §6).

Public surface: `RunStore` (create/open, plan, attempts, selection, cache, judge calls), `RunMeta`,
`RunResultRow`, `JudgeCall`, the selection rule (`select_attempt`, `next_step`) and the exports.

The exports are imported on first use (`reqbench export`, the report): a run writes none, and they are not
on the way to its first row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

_EXPORTS = ("export_jsonl", "export_parquet", "result_rows")


def __getattr__(name: str) -> Any:
    """The exports of `reqbench.core.store.export`, imported on first use (module docstring)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from reqbench.core.store import export

    value = getattr(export, name)
    globals()[name] = value
    return value

__all__ = [
    "DB_NAME", "DEFAULT_MAX_ATTEMPTS", "SCHEMA_VERSION", "Attempt", "JudgeCall", "NextStep", "RunMeta",
    "RunResultRow", "RunStore", "export_jsonl", "export_parquet", "is_run_dir", "next_step",
    "result_rows", "select_attempt", "utc_now",
]
