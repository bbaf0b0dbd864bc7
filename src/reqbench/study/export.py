"""Tidy export of a study: one row per (configuration, planned row), the configuration's settings as columns
in front of the columns `reqbench export` writes for a run (`report.export_rows.records`).

CSV holds nested values (result, artifacts, agent options) as JSON text; JSONL keeps them nested.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from reqbench.core.hashing import atomic_write_text
from reqbench.core.store import RunStore
from reqbench.report.export_rows import records
from reqbench.study.collect import StudyData

CONFIG_COLUMNS = ("configuration", "config_agent", "config_model", "config_judge", "config_agent_opts")


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


def _text(value: Any) -> Any:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if isinstance(value, dict | list) else value


def write_tidy(data: StudyData, path: Path) -> int:
    """Write the tidy rows to `path`: JSONL when its suffix is ``.jsonl``, else CSV; returns the row count."""
    rows = tidy_rows(data)
    if Path(path).suffix.lower() == ".jsonl":
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        return len(rows)
    columns = list(rows[0]) if rows else list(CONFIG_COLUMNS)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: _text(v) for k, v in r.items()} for r in rows)
    atomic_write_text(path, buf.getvalue())
    return len(rows)
