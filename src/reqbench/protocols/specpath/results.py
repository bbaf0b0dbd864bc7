"""The results-row file format (JSONL, DESIGN §4) read by `specpath stats` and written from run rows.

One line per row: ``{"family","config","condition","repeat","outcome","signature"}`` with outcome one of
success | failure | invalid and signature a list of 0/1 probe results (or null when no verifier ran).
Optional ``scaffold`` / ``model`` fields feed the breakdowns; otherwise they come from ``config`` split at
the first ``:`` (``mini-swe-agent:gpt-x`` -> scaffold ``mini-swe-agent``, model ``gpt-x``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.protocols.specpath.metrics import ResultRow


class ResultRecord(BaseModel):
    """One SpecPath results row."""

    model_config = ConfigDict(extra="allow")

    family: str = Field(description="Task family id.")
    config: str = Field(description="System configuration (model deployment x scaffold x budget).")
    condition: str = Field(description="History condition (direct, duplicate, split, ...).")
    repeat: int = Field(description="Repeat index.")
    outcome: Literal["success", "failure", "invalid"] = Field(
        description="success/failure are scored fixed-budget outcomes; invalid is attrition.")
    signature: list[Literal[0, 1]] | None = Field(None, description="Probe results in verifier order.")
    scaffold: str = Field("", description="Optional scaffold name for breakdowns.")
    model: str = Field("", description="Optional model deployment name for breakdowns.")
    reason: str = Field("", description="Optional outcome reason (docs/runs.md, 'Row outcomes'); invalid rows "
                        "are counted by reason in the attrition table.")

    def to_row(self) -> ResultRow:
        return ResultRow(self.family, self.config, self.condition, self.repeat, self.outcome,
                         tuple(self.signature) if self.signature is not None else None,
                         self.scaffold, self.model, self.reason)


def parse_results(lines: list[str], source: str = "results") -> list[ResultRow]:
    rows: list[ResultRow] = []
    seen: set[tuple[str, str, str, int]] = set()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = ResultRecord.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", file=source, item=f"line {n}") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"]) or "(row)"
            raise InputError(f"{loc}: {err['msg']}", file=source, item=f"line {n}") from None
        key = (rec.family, rec.config, rec.condition, rec.repeat)
        if key in seen:
            raise InputError("duplicate row (family, config, condition, repeat) — one selected attempt per "
                             "row", file=source, item=f"line {n}")
        if rec.outcome == "success" and rec.signature is not None and not all(rec.signature):
            raise InputError("outcome success needs every probe to pass (eq. 5)", file=source,
                             item=f"line {n}")
        seen.add(key)
        rows.append(rec.to_row())
    return rows


def read_results(path: Path) -> list[ResultRow]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", file=str(path)) from None
    return parse_results(text.splitlines(), str(path))


def results_from_run(run_dir: Path) -> list[ResultRow]:
    """The selected outcome of every planned row of a specpath run that has an attempt, as results rows."""
    from reqbench.core.store.runstore import RunStore
    from reqbench.protocols.specpath.result_rows import result_rows

    with RunStore.open(Path(run_dir), read_only=True) as store:
        if store.meta.protocol != "specpath":
            raise InputError("not a specpath run", file=str(run_dir),
                             item=f"protocol {store.meta.protocol!r}")
        return result_rows(store.outcomes())


def row_to_json(row: ResultRow) -> str:
    d = {"family": row.family, "config": row.config, "condition": row.condition, "repeat": row.repeat,
         "outcome": row.outcome, "signature": list(row.signature) if row.signature is not None else None}
    for key in ("scaffold", "model", "reason"):
        if getattr(row, key):
            d[key] = getattr(row, key)
    return json.dumps(d, sort_keys=False)
