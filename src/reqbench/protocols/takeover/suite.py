"""The takeover protocol as `reqbench run` sees it (`PROTOCOL`): detect, validate, plan, run, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.workspace import cache_root
from reqbench.protocols.takeover.delivery.admission import suite_admission_problems
from reqbench.protocols.takeover.delivery.config import is_takeover_suite, load_suite
from reqbench.protocols.takeover.loading import validate_project
from reqbench.protocols.takeover.run import report, rows
from reqbench.protocols.takeover.run.context import SuiteContext

DEFAULT_CONDITIONS = ("C1", "C2", "oracle-pre", "oracle-post", "two-phase-C1", "diag-C1", "diag-C2")


def _cache_root(options: RunOptions | None, fallback: Path) -> Path:
    return options.work_dir if options is not None and options.work_dir is not None else fallback


class TakeoverProtocol:
    name = "takeover"

    def detect(self, path: Path) -> bool:
        return is_takeover_suite(Path(path))

    def validate(self, path: Path) -> list[str]:
        """Suite file, project annotation (every ledger rule) and admission of each delivery target."""
        path = Path(path)
        try:
            suite = load_suite(path)
        except InputError as exc:
            return [str(exc)]
        problems = validate_project(path / suite.project)
        if problems:
            return problems
        import tempfile

        with tempfile.TemporaryDirectory(prefix="takeover-validate-") as tmp:
            ctx = SuiteContext.load(path, Path(tmp))
            known = set(ctx.target_ids())
            problems = [f"suite.yaml: delivery target {d.target_id}: not a selected target"
                        for d in suite.delivery if d.target_id not in known]
            return problems or suite_admission_problems(ctx)

    def plan(self, path: Path, options: RunOptions) -> list[Row]:
        conditions = options.conditions or DEFAULT_CONDITIONS
        unknown = [c for c in conditions if c not in rows.CONDITIONS]
        if unknown:
            raise InputError(f"unknown condition {unknown[0]!r}; takeover conditions: "
                             f"{', '.join(rows.CONDITIONS)}", item="--condition")
        suite = load_suite(Path(path))
        delivery_ids = [d.target_id for d in suite.delivery]
        ctx = SuiteContext.load(Path(path), _cache_root(options, cache_root() / "takeover-work"))
        all_ids = ctx.target_ids()
        out = []
        for repeat in range(options.repeats):
            for cond in conditions:
                ids = delivery_ids if cond in rows.DELIVERY_CONDITIONS else all_ids
                out += [Row(t, cond, options.agent, repeat) for t in ids]
        return out

    def _ctx(self, path: Path, options: RunOptions, work_dir: Path) -> SuiteContext:
        return SuiteContext.load(Path(path), _cache_root(options, work_dir))

    def run_row(self, path: Path, row: Row, options: RunOptions, work_dir: Path) -> RowOutcome:
        return rows.run_row(self._ctx(path, options, work_dir), row, options, work_dir)

    def reevaluate(self, path: Path, row: Row, previous: RowOutcome, options: RunOptions,
                   work_dir: Path) -> RowOutcome:
        return rows.reevaluate(self._ctx(path, options, work_dir), row, previous, options, work_dir)

    def summarize(self, path: Path, rows_: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="takeover-report-") as tmp:
            return report.summarize(SuiteContext.load(Path(path), Path(tmp)), rows_)

    def headline(self, summary: dict[str, Any]) -> dict[str, Any]:
        """Complete-delivery rate per delivery condition and RQ3 decision accuracy per diagnostic one."""
        out: dict[str, Any] = {f"{c} delivery": r["complete_delivery"]
                               for c, r in (summary.get("delivery") or {}).items()}
        out |= {f"{c} RQ3 decision acc.": r.get("decision_accuracy")
                for c, r in (summary.get("rq3_decision") or {}).items()}
        return out

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        suite = bundled_suite("takeover")
        return [(suite, RunOptions(agent=agent, conditions=DEFAULT_CONDITIONS, judge="exact", concurrency=2))
                for agent in ("reference", "null")]


PROTOCOL = TakeoverProtocol()
