"""`load_run(DIR) -> Run`: a run directory read back for analysis, as typed records.

A `Run` holds only the directory and its metadata; every read opens the run store read-only and closes it
again, so a script can keep many runs around (and read one while it is still running) without holding
files open. Rows are read under one grading (default: the latest, as ``reqbench report`` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.analysis.frames import Frame, frame
from reqbench.analysis.records import Grading, ModelUsage, RunRow
from reqbench.core.errors import InputError
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.runstore import RunStore, is_run_dir
from reqbench.core.summary import Summary
from reqbench.report.export_rows import ROW_TYPES, records
from reqbench.report.run_report import pick_grading


@dataclass(frozen=True)
class Run:
    """One run directory: its protocol, options, gradings and rows."""

    path: Path
    protocol: str
    suite: str
    """The suite directory the run was made from."""
    options: dict[str, Any]
    """The run's stored options (agent, judge, conditions, repeats, seed, agent options, ...)."""
    created: str

    @property
    def agent(self) -> str:
        return str(self.options.get("agent") or "")

    @property
    def gradings(self) -> list[Grading]:
        """``original`` first, then each regrade in the order they were made."""
        with RunStore.open(self.path, read_only=True) as store:
            return [Grading(str(g["label"]), str(g["judge"]), bool(g["checks"]), str(g["created"]), str(g["note"]))
                    for g in store.gradings()]

    def rows(self, grading: str | None = None) -> list[RunRow]:
        """Every planned row in plan order, with its selected attempt under `grading` (default: the latest
        grading; an unknown label is an `InputError` naming the ones the run has)."""
        with RunStore.open(self.path, read_only=True) as store:
            model = store.result_model
            label = pick_grading(store, grading)
            usage = StoreRecorder.for_store(store).totals()
            return [RunRow.of(record, model, usage.get(record["row_key"])) for record in records(store, label)]

    def to_records(self, grading: str | None = None) -> list[dict[str, Any]]:
        """The rows as plain dicts, exactly the rows ``reqbench export`` writes (JSONL form)."""
        return [row.to_record() for row in self.rows(grading)]

    def to_pandas(self, grading: str | None = None) -> Frame:
        """The rows as a pandas DataFrame, one column per export column, typed (``tokens`` a nullable
        integer, ``cost_usd`` a float; ``result`` and ``artifacts`` hold dicts). Needs pandas
        (``pip install 'reqbench[pandas]'``)."""
        return frame(self.to_records(grading), ROW_TYPES)

    def usage(self) -> ModelUsage | None:
        """The recorded model calls of every row together (None: the run made none)."""
        with RunStore.open(self.path, read_only=True) as store:
            totals = list(StoreRecorder.for_store(store).totals().values())
        if not totals:
            return None
        priced = [t["cost_usd"] for t in totals if t["cost_usd"] is not None]
        models: dict[str, int] = {}
        for t in totals:
            for name, n in (t.get("models") or {}).items():
                models[name] = models.get(name, 0) + n
        summed = {k: sum(t[k] for t in totals) for k in ("calls", "upstream", "replay", "refused",
                                                          "prompt_tokens", "completion_tokens")}
        return ModelUsage.of({**summed, "cost_usd": sum(priced) if priced else None,
                              "cost_complete": all(t["cost_complete"] for t in totals), "models": models})

    def summary(self, grading: str | None = None) -> Summary:
        """The protocol's typed summary of the run (its tables of `Metric(value, ci, n)`, headline and
        plots), as ``reqbench report`` computes it; needs the protocol and the run's suite."""
        from reqbench.core.execute.suite import load_protocol

        suite = load_protocol(self.protocol).load(Path(self.suite))
        with RunStore.open(self.path, read_only=True) as store:
            return suite.summarize(store.outcomes(grading=pick_grading(store, grading)))


def load_run(path: str | Path) -> Run:
    """The run in `path` (a directory made by ``reqbench run``, or one configuration's run of a study);
    an `InputError` when it is not one."""
    run_dir = Path(path).absolute()
    if not is_run_dir(run_dir):
        raise InputError("not a run directory (no run.sqlite)", file=str(run_dir))
    with RunStore.open(run_dir, read_only=True) as store:
        meta = store.meta
    return Run(run_dir, meta.protocol, meta.suite_path, dict(meta.options), meta.created)
