"""Tidy export of a study: one row per (configuration, planned row), the configuration's settings as columns
in front of the columns `reqbench export` writes for a run (`report.export_rows.records`).

The file's suffix picks the format (CSV, JSONL or Parquet, typed like `reqbench export`'s); CSV and Parquet
hold nested values (result, artifacts, agent options) as JSON text, JSONL keeps them nested.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.store import RunStore
from reqbench.report.export_rows import ROW_TYPES, SUFFIXES, records, write_rows
from reqbench.study.collect import StudyData


def tidy_rows(data: StudyData) -> list[dict[str, Any]]:
    """Every planned row of every configuration that has a run directory, configuration columns first."""
    out: list[dict[str, Any]] = []
    for name, stored in data.configs.items():
        config = stored.config
        front = {"configuration": name, "config_agent": config.agent, "config_model": config.model,
                 "config_judge": config.judge, "config_agent_opts": config.agent_opts}
        with RunStore.open(stored.run_dir, read_only=True) as store:
            out += [{**front, **record} for record in records(store)]
    return out


CONFIG_TYPES: dict[str, Any] = {"configuration": str, "config_agent": str, "config_model": str | None,
                                "config_judge": str | None, "config_agent_opts": dict}
"""The configuration columns' types (for Parquet); the run's columns follow (`ROW_TYPES`)."""


def tidy_format(path: Path) -> str:
    """The format `path`'s suffix names: ``.jsonl`` JSONL, ``.parquet`` / ``.pq`` Parquet, ``.csv`` or no
    suffix CSV; any other suffix is refused (exit 2) before anything is read or written."""
    suffix = Path(path).suffix.lower()
    if suffix in ("", ".csv"):
        return "csv"
    named = SUFFIXES.get(suffix.lstrip("."))
    if named is None:
        raise InputError(f"cannot tell the format from the suffix {suffix!r}; name the file .csv, .jsonl or "
                         ".parquet", file=str(path), item="--csv")
    return named


def write_tidy(data: StudyData, path: Path) -> int:
    """Write the tidy rows to `path` in the format its suffix names (`tidy_format`); returns the row count."""
    fmt = tidy_format(path)
    rows = tidy_rows(data)
    write_rows(path, fmt, rows, {**CONFIG_TYPES, **ROW_TYPES})
    return len(rows)
