"""Judging repetitions of a study (`reqbench study rejudge DIR --times K`): the frozen submissions of every
row graded again by the configuration's own judge, K times, each time with **fresh** judge calls.

Repetition k is the grading ``rejudge-k`` of the configuration's run directory (`core.execute.regrade`:
one ``reevaluate`` attempt per row, linked to its original attempt; checks are not re-run, agents never
are). It runs inside the model-access draw ``rejudge-k`` (`core.llm.run_access.fresh_draw`), so no judge
answer recorded by the run or by another repetition is replayed: every judge request of the repetition
goes to the model, and its answer is recorded under the repetition's own key. ``--times K`` asks for
repetitions 1..K: a repetition that is complete is left as it is, an interrupted one continues (its
recorded answers replay, the rest are asked), so running the same command twice asks nothing twice.

PACE-Bench (§4.5, Obs. 5, Table 11) compares the spread of case scores across execution repeats with
the spread across judging records of fixed patches; `study.repetition` reads both back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reqbench import api
from reqbench.core.errors import InputError
from reqbench.core.execute.judge_use import why_no_judge
from reqbench.core.execute.options import options_from_json
from reqbench.core.execute.regrade import regrade_run
from reqbench.core.execute.runner import WORK_DIR
from reqbench.core.execute.suite import SuiteProtocol
from reqbench.core.execute.types import RunOptions
from reqbench.core.llm.run_access import fresh_draw
from reqbench.core.store import RunStore
from reqbench.protocols.lookup import protocol_for_suite
from reqbench.study.layout import StudyDir

PREFIX = "rejudge-"
"""Judging repetition k of a configuration is its grading ``rejudge-k`` (k = 1, 2, ...)."""
MAX_TIMES = 100
NOTE = "judging repetition {k}: the run's judge, fresh judge calls (reqbench study rejudge)"


def label(k: int) -> str:
    return f"{PREFIX}{k}"


def repetition_labels(gradings: list[dict[str, object]]) -> list[str]:
    """The judging repetitions among a run's gradings, in repetition order."""
    found = [str(g["label"]) for g in gradings if str(g["label"]).startswith(PREFIX)
             and str(g["label"])[len(PREFIX):].isdigit()]
    return sorted(found, key=lambda name: int(name[len(PREFIX):]))


@dataclass(frozen=True)
class Repetition:
    """What one judging repetition of one configuration did (`regrade_run`'s counts)."""

    config: str
    label: str
    counts: dict[str, int]


def rejudge_study(path: Path, times: int, configs: list[str] | None = None,
                  on_skip: Callable[[str, str], None] | None = None) -> list[Repetition]:
    """Make sure the named configurations (default: every one with a run directory) have judging
    repetitions 1..`times`; returns what each repetition did. Holds the study's lock.

    A configuration whose rows call no judge (its protocol says why, `core.execute.judge_use`) has nothing
    to vary: named with `configs`, it is an `InputError`; by default it is skipped, reported to `on_skip`
    (name, why); when no configuration is left, an `InputError` before anything is written."""
    if not 1 <= times <= MAX_TIMES:
        raise InputError(f"--times must be between 1 and {MAX_TIMES}", item=f"--times {times}")
    study = StudyDir.open(path)
    spec = study.spec()
    names = configs or [c.name for c in spec.configurations if study.has_run(c.name)]
    for name in names:
        spec.configuration(name)  # an unknown name is an InputError listing the study's names
        if not study.has_run(name):
            raise InputError("the configuration has no rows yet; run the study first",
                             item=f"configuration {name!r}")
    suite_path = api.resolve_suite(spec.suite)
    if not suite_path.is_dir():
        raise InputError("the study's suite is not there any more; restore it to rejudge the study",
                         file=str(suite_path))
    suite = protocol_for_suite(suite_path).load(suite_path)
    judged = _judged(study, suite.protocol, names, explicit=bool(configs), on_skip=on_skip)
    done: list[Repetition] = []
    with study.exclusive():
        for name, base in judged.items():
            with RunStore.open(study.run_dir(name)) as store:
                options = dataclasses.replace(base, recheck=False, offline=False)
                for k in range(1, times + 1):
                    store.add_grading(label(k), options.judge, False, NOTE.format(k=k))
                    with fresh_draw(label(k)):
                        counts = regrade_run(store, suite, options, label=label(k), checks=False)
                    done.append(Repetition(name, label(k), counts))
    return done


def _judged(study: StudyDir, protocol: SuiteProtocol, names: list[str], *, explicit: bool,
            on_skip: Callable[[str, str], None] | None) -> dict[str, RunOptions]:
    """The configurations among `names` whose rows call a judge, with their runs' options."""
    kept: dict[str, RunOptions] = {}
    skipped: dict[str, str] = {}
    for name in names:
        with RunStore.open(study.run_dir(name), read_only=True) as store:
            options = options_from_json(store.meta.options, work_dir=store.run_dir / WORK_DIR)
        why = why_no_judge(protocol, options)
        if why is None:
            kept[name] = options
            continue
        if explicit:
            raise InputError(f"nothing to vary: {why}, so a judging repetition would re-grade every row to the "
                             "same result", item=f"configuration {name!r}")
        skipped[name] = why
    if not kept:
        why = f" ({next(iter(skipped.values()))})" if skipped else ""
        raise InputError(f"nothing to vary: no configuration's rows call a judge{why}, so judging repetitions "
                         "would re-grade every row to the same result; nothing was written", file=str(study.path))
    for name, why in skipped.items():
        if on_skip is not None:
            on_skip(name, why)
    return kept
