"""The takeover protocol as `reqbench run` sees it (`PROTOCOL`): detect, validate, load; a loaded suite
(`LoadedSuite`) plans, runs and re-evaluates rows and summarises them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import tempdirs
from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import Outcomes, RowContext, Suite, SuiteProtocol
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.suggest import did_you_mean
from reqbench.core.workspace import cache_root
from reqbench.protocols.takeover.annotation.loading import validate_project
from reqbench.protocols.takeover.run import rows
from reqbench.protocols.takeover.run.admission import suite_admission_problems
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.options import TakeoverOptions, split_options
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.suite_file import is_takeover_suite, load_suite

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy
    from reqbench.core.summary import Summary
    from reqbench.core.views import AttemptRecord, RowView

DEFAULT_CONDITIONS = ("C1", "C2", "oracle-pre", "oracle-post", "two-phase-C1", "two-phase-C2", "diag-C1",
                      "diag-C2")
"""Every condition of the paper's design (§4, D.2), the two-phase benchmark under both histories included."""


def _cache_root(options: RunOptions | None, fallback: Path) -> Path:
    return options.work_dir if options is not None and options.work_dir is not None else fallback


class TakeoverProtocol(SuiteProtocol):
    name = "takeover"
    options_model = TakeoverOptions
    """Its ``--agent-opt takeover.KEY`` settings (`core.execute.settings`)."""
    result_model = TakeoverResult
    """Its rows' `RowOutcome.result`."""

    def row_view(self, record: AttemptRecord) -> RowView:
        """The row page's takeover part, as data (`takeover/run/view.py`)."""
        from reqbench.protocols.takeover.run.view import row_view

        return row_view(record)

    def detect(self, path: Path) -> bool:
        return is_takeover_suite(Path(path))

    def unused_judge(self, options: RunOptions) -> str | None:
        """Only Phase-A responses are judged: diagnostic and two-phase conditions (`core.execute.judge_use`)."""
        if any(c in rows.JUDGED_CONDITIONS for c in options.conditions or DEFAULT_CONDITIONS):
            return None
        return (f"takeover judges Phase-A responses only, under {', '.join(rows.JUDGED_CONDITIONS)}; "
                f"the conditions {', '.join(options.conditions)} are scored by their checks")

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
        with tempdirs.folder("takeover-validate") as tmp:
            ctx = SuiteContext.load(path, Path(tmp))
            known = set(ctx.target_ids())
            problems = [f"suite.yaml: delivery target {d.target_id}: not a selected target"
                        for d in suite.delivery if d.target_id not in known]
            return problems or suite_admission_problems(ctx)

    def load(self, path: Path) -> LoadedSuite:
        return LoadedSuite(self, Path(path))

    def dataset_stats(self, path: Path) -> Summary:
        """ReqMemBench Tables 7-9 of the suite at `path` (`reqbench stats`)."""
        from reqbench.protocols.takeover.dataset.stats import dataset_stats

        return dataset_stats(Path(path))

    def study(self) -> ProtocolStudy:
        """Its paired value and paper-shaped study tables (`protocols.takeover.study`)."""
        from reqbench.protocols.takeover.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        suite = bundled_suite("takeover")
        return [(suite, RunOptions(agent=agent, conditions=DEFAULT_CONDITIONS, judge="exact", concurrency=2))
                for agent in ("reference", "null")]


class LoadedSuite(Suite):
    """A takeover suite loaded once: its suite file, and the built release (`SuiteContext`) per cache root,
    so rows neither re-read the suite nor hash the project tree again."""

    def __init__(self, protocol: TakeoverProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path
        self.suite = load_suite(path)
        self._contexts: dict[Path, SuiteContext] = {}
        self._lock = threading.Lock()

    def context(self, root: Path) -> SuiteContext:
        """The release built under `root` (built there once; rebuilt when its build was removed)."""
        with self._lock:
            found = self._contexts.get(root)
            if found is not None and (found.build_dir / "RQ3" / "index.json").is_file():
                return found
            ctx = self._contexts[root] = SuiteContext.load(self.path, root)
            return ctx

    def _row_context(self, ctx: RowContext) -> SuiteContext:
        options = ctx.options
        if options.work_dir is not None:  # the run's cache, shared by its rows
            return self.context(options.work_dir)
        return SuiteContext.load(self.path, _cache_root(options, ctx.work_dir))  # scratch: not kept

    def plan(self, options: RunOptions) -> list[Row]:
        split_options(options)  # a bad takeover.* option stops the run before anything is planned
        conditions = options.conditions or DEFAULT_CONDITIONS
        unknown = [c for c in conditions if c not in rows.CONDITIONS]
        if unknown:
            raise InputError(f"unknown condition {unknown[0]!r}{did_you_mean(unknown[0], rows.CONDITIONS)}; "
                             "takeover conditions: "
                             f"{', '.join(rows.CONDITIONS)}", item="--condition")
        delivery_ids = [d.target_id for d in self.suite.delivery]
        all_ids = self.context(_cache_root(options, cache_root() / "takeover-work")).target_ids()
        out = []
        for repeat in range(options.repeats):
            for cond in conditions:
                ids = delivery_ids if cond in rows.DELIVERY_CONDITIONS else all_ids
                out += [Row(t, cond, options.agent, repeat) for t in ids]
        return out

    def run_inputs(self, options: RunOptions) -> dict[str, Any]:
        """The Phase-A texts the rows show (`core.execute.run_inputs`): their origin, digests and the sentence
        every report prints (reqbench's paraphrase is named as a difference from the release)."""
        return {"phase_a_texts": split_options(options)[0].texts.provenance()}

    def environments(self) -> dict[str, Any]:
        """The suite's task environment for every row (key ""), and each delivery target's own (DESIGN §14)."""
        from reqbench.core.execute.environments import declared_environments

        f = str(self.path / "suite.yaml")
        return declared_environments([("", self.suite.environment, f, self.path),
                                      *((d.target_id, d.environment, f, self.path) for d in self.suite.delivery)])

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        return rows.run_row(self._row_context(ctx), row, ctx)

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return rows.reevaluate(self._row_context(ctx), row, previous, ctx.options, ctx.work_dir)

    def summarize(self, outcomes: Outcomes) -> Summary:
        from reqbench.protocols.takeover.run import report, summary  # the end of a run only

        with tempdirs.folder("takeover-report") as tmp:
            return summary.summary(report.summarize(SuiteContext.load(self.path, Path(tmp)), outcomes))


PROTOCOL = TakeoverProtocol()
