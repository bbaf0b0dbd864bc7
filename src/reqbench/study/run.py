"""The three ways a study runs: `run_study` (a new study directory from a study file), `resume_study` (continue
one: finished rows are kept, the rest run) and `add_configurations` (append configurations, then run only
what has no finished attempt -- the rows of existing configurations are reused, never re-run).

Nothing is created unless every configuration passes preflight and planning; a study directory this call
created is removed again when the study fails before its first attempt is stored (each configuration's
lane of `core.execute.lanes` removes an empty run directory it created, as a run's does).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from reqbench.study.driver import Prepared, StartSink, attempts_recorded, execute, prepare
from reqbench.study.layout import StudyDir, merge_configurations
from reqbench.study.spec import Configuration, StudyFile


@dataclass(frozen=True)
class Talk:
    """How a study talks while it runs (all optional): validation problems, long validation steps, the
    progress bar's console."""

    on_problem: Callable[[str], None] | None = None
    on_resume: StartSink | None = None
    """When the study directory existed (resume, add): per configuration, the rows kept as finished and the
    rows this invocation runs, before any runs."""
    progress: Any = None
    console: Console | None = None
    show_progress: bool = False


QUIET = Talk()


@dataclass(frozen=True)
class StudyResult:
    """A study after this invocation: where it is, and each configuration's `RunStore.counts()`."""

    path: Path
    counts: dict[str, dict[str, int]]
    added: tuple[str, ...] = ()


def _execute(study: StudyDir, spec: StudyFile, prepared: Prepared, *, created: bool, executor: str,
             talk: Talk) -> StudyResult:
    try:
        with study.exclusive():
            counts = execute(study, prepared, executor_name=executor, seed=spec.seed,
                             show_progress=talk.show_progress, console=talk.console,
                             on_start=None if created else talk.on_resume)
    except BaseException:
        if created and not attempts_recorded(study, [c.name for c in spec.configurations]):
            shutil.rmtree(study.path, ignore_errors=True)
        raise
    return StudyResult(study.path, counts)


def _prepare(spec: StudyFile, path: Path, concurrency: int, offline: bool, talk: Talk) -> Prepared:
    return prepare(spec, path, concurrency=concurrency, offline=offline, on_problem=talk.on_problem,
                   progress=talk.progress)


def run_study(spec: StudyFile, out: Path, *, executor: str = "local", concurrency: int = 1, offline: bool = False,
              talk: Talk = QUIET, source: Path | None = None) -> StudyResult:
    """Create the study directory `out` for `spec` (read from the study file `source`) and run it. Preflight
    and planning of every configuration come first, so bad input creates nothing."""
    prepared = _prepare(spec, out, concurrency, offline, talk)
    study = StudyDir.create(out, spec, source)
    return _execute(study, spec, prepared, created=True, executor=executor, talk=talk)


def resume_study(path: Path, *, executor: str = "local", concurrency: int = 1, offline: bool = False,
                 talk: Talk = QUIET) -> StudyResult:
    """Continue the study in `path`: its stored study file, only the rows without a finished attempt."""
    study = StudyDir.open(path)
    spec = study.spec()
    return _execute(study, spec, _prepare(spec, study.path, concurrency, offline, talk), created=False,
                    executor=executor,
                    talk=talk)


def add_configurations(path: Path, configs: list[Configuration], *, executor: str = "local", concurrency: int = 1,
                       offline: bool = False, talk: Talk = QUIET) -> StudyResult:
    """Append `configs` to the study in `path` and run the study: the new configurations' rows run, existing
    rows are reused (a name that exists with the same settings is a no-op). Every configuration passes
    preflight and planning before the study file changes."""
    study = StudyDir.open(path)
    merged, added = merge_configurations(study.spec(), configs)
    prepared = _prepare(merged, study.path, concurrency, offline, talk)
    with study.exclusive():
        study.write(merged)
    result = _execute(study, merged, prepared, created=False, executor=executor, talk=talk)
    return StudyResult(result.path, result.counts, tuple(added))
