"""The SpecPath `SuiteProtocol`: what `reqbench validate / run / report / demo` call; `load` gives a
`LoadedSuite` (the families, read once) that plans, runs and summarises rows.

A suite is a folder with ``suite.yaml`` (``protocol: specpath``, ``families: [...]``) or a single family
folder (``family.yaml``). The plan is families x conditions x repeats for the run's one agent
configuration (the executor shuffles within a repeat with the run seed; SpecPath's barrier between repeats
is kept by default, `SpecPathProtocol.repeat_barrier`). Provider and runner problems are external invalids
(attrition), retried by the executor at the same budget; a verifier that cannot run is *pending* and
`reevaluate` verifies the frozen patch again.

What only the end of a run needs (statistics, summary, views) is imported where it is used, so a run
reaches its first row without it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.schedule import RepeatBarrier
from reqbench.core.execute.suite import Outcomes, RowContext, Suite, SuiteProtocol
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.suggest import did_you_mean
from reqbench.protocols.base import marker_protocol
from reqbench.protocols.specpath import sources
from reqbench.protocols.specpath.equivalence import check_family
from reqbench.protocols.specpath.family import Family, load_family, load_suite
from reqbench.protocols.specpath.models import ALL_CONDITIONS
from reqbench.protocols.specpath.reference_check import CALIBRATE_HINT, reference_problems
from reqbench.protocols.specpath.result_rows import result_rows
from reqbench.protocols.specpath.row_result import SpecpathResult
from reqbench.protocols.specpath.runs import SpecpathOptions, reevaluate_row, run_row, split_options

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy
    from reqbench.core.summary import Summary
    from reqbench.core.views import AttemptRecord, Block, RowView


def _marker(path: Path) -> bool:
    if (path / "family.yaml").is_file():
        return True
    return marker_protocol(path / "suite.yaml") == "specpath"


_CACHE: dict[tuple[Any, ...], dict[str, Family]] = {}
_CACHE_LOCK = threading.Lock()


def _stamp(dirs: list[Path]) -> tuple[Any, ...]:
    """What loaded families depend on: every family.yaml (path, mtime, size)."""
    files = [d / "family.yaml" for d in dirs]
    return tuple((str(f), st.st_mtime_ns, st.st_size) for f in files if f.is_file() and (st := f.stat()))


def families(path: Path) -> dict[str, Family]:
    """Family id -> loaded family, for a suite or single-family folder (ids must be unique).

    Cached per process while the suite's family list and every family.yaml are unchanged: rows of one
    run reload nothing, and an edited family file is picked up again.
    """
    _, dirs = load_suite(Path(path).resolve())
    key = (str(Path(path).resolve()), _stamp(dirs))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    loaded = _load_families(dirs)
    with _CACHE_LOCK:
        _CACHE[key] = loaded
    return loaded


def _load_families(dirs: list[Path]) -> dict[str, Family]:
    out: dict[str, Family] = {}
    for d in dirs:
        fam = load_family(d)
        if fam.id in out:
            raise InputError("family ids must be unique within a suite", file=str(d / "family.yaml"),
                             item=f"id {fam.id!r}")
        out[fam.id] = fam
    return out


def _missing_inputs(fam: Family) -> list[str]:
    """Patch files and folders a family names but lacks (fetched sources are not fetched here)."""
    problems = []
    exprs = [(fam.spec.reference_patch, False), *((e, True) for e in fam.spec.negatives.values())]
    for expr, in_negative in exprs:
        try:
            files = sources.file_terms(expr, allow_reference=in_negative)
        except InputError as exc:
            problems.append(f"{fam.root / 'family.yaml'}: {exc}")
            continue
        problems += [f"{fam.root / rel}: patch file missing" for rel in files if not (fam.root / rel).is_file()]
    try:
        fetched = sources.base_source(fam.root, fam.spec.base_repo) is not None
    except InputError as exc:
        return [*problems, f"{fam.root / 'family.yaml'}: base_repo: {exc}"]
    folders = [fam.hidden_dir] if fetched else [fam.root / fam.spec.base_repo, fam.hidden_dir]
    return problems + [f"{folder}: folder missing" for folder in folders if not folder.is_dir()]


class SpecPathProtocol(SuiteProtocol):
    name = "specpath"
    options_model = SpecpathOptions
    """Its ``--agent-opt specpath.KEY`` settings (`core.execute.settings`)."""
    result_model = SpecpathResult
    condition_context = "revision"
    """Trajectory exports record a row's condition as its ``revision`` (the history condition, SpecPath §3)."""
    """Its rows' `RowOutcome.result`."""
    validation_note = f"every family's reference patch passes its verifier; {CALIBRATE_HINT}"

    def row_view(self, record: AttemptRecord) -> RowView:
        """The row page's specpath part, as data (`specpath/view.py`)."""
        from reqbench.protocols.specpath.view import row_view

        return row_view(record)

    def run_view(self, outcomes: Outcomes) -> tuple[Block, ...]:
        """The run page's probe raster, as data."""
        from reqbench.protocols.specpath.view import run_view

        return run_view(outcomes)

    def detect(self, path: Path) -> bool:
        return _marker(Path(path))

    def repeat_barrier(self, options: RunOptions) -> RepeatBarrier | None:
        """SpecPath §4.3's barrier between repeats (`core.execute.schedule`), unless the run lifts it with
        ``--agent-opt specpath.barrier_between_repeats=false``."""
        if not split_options(options)[0].barrier_between_repeats:
            return None
        return RepeatBarrier("SpecPath §4.3", "--agent-opt specpath.barrier_between_repeats=false")

    def unused_judge(self, options: RunOptions) -> str | None:
        """SpecPath scores by probe tests only (`core.execute.judge_use`)."""
        return "specpath scores every row with its probe tests, never with a judge"

    def validate(self, path: Path) -> list[str]:
        try:
            fams = families(path)
        except InputError as exc:
            return [str(exc)]
        problems: list[str] = []
        sound: list[Family] = []
        for fam in fams.values():
            report = check_family(fam)
            found = [f"{fam.root / 'family.yaml'}: {msg}" for msg in
                     [*report.errors, *(d.sentence() for d in report.divergences)]]
            for atom in fam.atoms:
                if atom.id not in fam.spec.negatives:
                    found.append(f"{fam.root / 'family.yaml'}: atom {atom.id!r}: needs a selective "
                                 "negative patch")
            found += _missing_inputs(fam)
            problems += found
            if not found:
                sound.append(fam)
        return problems + reference_problems(sound)

    def warnings(self, path: Path) -> list[str]:
        """Non-blocking findings: families without provenance or without a history audit."""
        from reqbench.protocols.specpath.family import provenance_warnings

        try:
            fams = families(path)
        except InputError:
            return []
        return [w for fam in fams.values() for w in provenance_warnings(fam)]

    def load(self, path: Path) -> LoadedSuite:
        return LoadedSuite(self, Path(path))

    def dataset_stats(self, path: Path) -> Summary:
        """SpecPath Tables 1-2 (families; histories per condition) of the suite at `path` (`reqbench stats`)."""
        from reqbench.protocols.specpath.stats import dataset_stats

        return dataset_stats(list(families(Path(path)).values()))

    def study(self) -> ProtocolStudy:
        """Its paired value and paper-shaped study tables (`protocols.specpath.study`)."""
        from reqbench.protocols.specpath.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        suite = bundled_suite("specpath")
        return [(suite, RunOptions(agent=agent, concurrency=2)) for agent in ("reference", "null")]



class LoadedSuite(Suite):
    """A SpecPath suite with its families loaded once."""

    def __init__(self, protocol: SpecPathProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path
        self.families = families(path)

    def plan(self, options: RunOptions) -> list[Row]:
        settings, _ = split_options(options)  # unknown specpath.* options fail before anything runs
        if not settings.allow_uncalibrated:  # verifier calibration gates the run (calibration_gate.py)
            from reqbench.protocols.specpath.calibration_gate import uncalibrated

            refused = uncalibrated(self.families)
            if refused:
                raise InputError("; ".join(refused))
        conditions = list(options.conditions) or list(ALL_CONDITIONS)
        for cond in conditions:
            for fam in self.families.values():
                if cond not in fam.histories:
                    raise InputError(f"unknown condition{did_you_mean(cond, ALL_CONDITIONS)}; known: "
                                     f"{', '.join(ALL_CONDITIONS)}",
                                     file=str(fam.root / "family.yaml"), item=f"--condition {cond}")
        return [Row(fid, cond, options.agent, rep) for rep in range(options.repeats)
                for fid in sorted(self.families) for cond in conditions]

    def environments(self) -> dict[str, Any]:
        """The task environment each family declares (``environment:`` in its family.yaml; DESIGN §14)."""
        from reqbench.core.execute.environments import declared_environments

        return declared_environments((fid, fam.spec.environment, str(fam.root / "family.yaml"), fam.root)
                                     for fid, fam in sorted(self.families.items()))

    def _family(self, row: Row) -> Family:
        fam = self.families.get(row.task_id)
        if fam is None:
            raise InputError("planned family no longer in the suite", file=str(self.path), item=row.task_id)
        return fam

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        return run_row(self._family(row), row, ctx)

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return reevaluate_row(self._family(row), previous, ctx.options, ctx.work_dir)

    def summarize(self, outcomes: Outcomes) -> Summary:
        """The statistics as tables (`report.report_tables`); headline: FCR of the direct history and
        any-CPV (estimates; task-macro); bar charts of FCR and CPV with their intervals."""
        from reqbench.core.summary import Summary, bar_from_table
        from reqbench.protocols.specpath.metrics import summarize_results
        from reqbench.protocols.specpath.report import report_tables

        stats = summarize_results(result_rows(outcomes))
        data = report_tables(stats)
        headline = {"FCR direct": (stats["fcr"].get("direct") or {}).get("estimate"),
                    "CPV any": (stats["cpv"].get("any") or {}).get("estimate")}
        summary = Summary.build(data, tables=[k for k, v in data.items() if isinstance(v, dict)],
                                headline=headline, skip=["plots"])
        plots = [bar_from_table(t, spec["column"], title=spec["title"], ylabel=spec["ylabel"])
                 for spec in data["plots"] if (t := summary.table(spec["table"])) is not None]
        return Summary(summary.overview, summary.tables, summary.headline, [p for p in plots if p], data)


PROTOCOL = SpecPathProtocol()
