"""Executing a study: every configuration checked before anything starts, then the rows of all configurations
interleaved in one seeded order, each attempt recorded in its configuration's own run store.

* `prepare` (nothing is written): each configuration is a lane of `core.execute.lanes.plan_lanes`, the
  path `reqbench run` takes with one lane, so every check of a run holds for every configuration (no
  credential among its options, its run directory, its protocol settings, a judge some row calls,
  isolation, agent construction, its model priced under the protocol's dollar budget and allowed, its
  program, its endpoints); then the suite is validated and loaded once, every configuration planned and its
  environments built. Any failure is an `InputError` naming the configuration.
* `execute` runs one schedule over ``(configuration, row)`` items: within a repeat, the items of all
  configurations are shuffled together by the seed (`core.execute.schedule`), so provider load or the time
  of day favours no configuration; a barrier separates repeats, across all configurations. With frozen
  simulated users (``freeze_user_from``, `study.frozen`) the pilot's rows run first, then its users are
  written out, then every other configuration's rows. `core.execute.lanes.execute_lanes` runs it, the loop
  a run takes, with one lane per configuration, so attempts, retries of invalid rows, re-evaluation of
  pending ones and the outcome taxonomy are exactly a run's.

Each run directory keeps the store-per-run contract (its own options, plan, lock, scratch and cache);
a SIGKILL at any point loses only the attempts in flight, and ``--resume`` runs exactly the rows that have
no finished attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from reqbench import api
from reqbench.core.execute.lanes import LaneSpec, Planned, StartSink, execute_lanes, plan_lanes
from reqbench.core.store import RunStore
from reqbench.core.store.selection import DEFAULT_MAX_ATTEMPTS
from reqbench.protocols.lookup import protocol_for_suite
from reqbench.study.frozen import frozen_user_option, write_frozen_users
from reqbench.study.layout import StudyDir
from reqbench.study.spec import StudyFile

__all__ = ["Prepared", "StartSink", "attempts_recorded", "execute", "prepare"]


@dataclass(frozen=True)
class Prepared:
    """Everything checked before a study writes anything: one lane per configuration (`core.execute.lanes`:
    options, preflight facts, plan, environments) over the suite, loaded once."""

    planned: Planned
    pilot: str | None = None
    """The configuration whose simulated users the others replay (``freeze_user_from``): it runs first."""


def _lanes(spec: StudyFile, study: StudyDir, concurrency: int, offline: bool) -> list[LaneSpec]:
    """One lane per configuration; with ``freeze_user_from`` the suite's protocol is found first, for the
    option through which its runs read the frozen users (`study.frozen`)."""
    frozen = None
    if spec.freeze_user_from:
        protocol = protocol_for_suite(api.resolve_suite(spec.suite))
        frozen = (frozen_user_option(protocol, spec), study.frozen_user_file)
    return [LaneSpec(study.run_dir(c.name),
                     spec.run_options(c, concurrency=concurrency, offline=offline, frozen_user=frozen), c.name,
                     {"study": {"dir": str(study.path), "configuration": c.name}})
            for c in spec.configurations]


def prepare(spec: StudyFile, study_path: Path, *, concurrency: int = 1, offline: bool = False,
            on_problem: Callable[[str], None] | None = None, progress: Any = None) -> Prepared:
    """Every configuration checked as `reqbench run` checks a run, the suite validated and loaded once, every
    configuration planned and its environments built (`core.execute.lanes.plan_lanes`)."""
    study = StudyDir(Path(study_path).absolute())
    planned = plan_lanes(api.resolve_suite(spec.suite), _lanes(spec, study, concurrency, offline), resume=True,
                         detect=protocol_for_suite, validate=api.validate, on_problem=on_problem, progress=progress)
    return Prepared(planned, spec.freeze_user_from)


def phases(prepared: Prepared) -> list[list[str]]:
    """The configurations in the order they run: all at once, or the pilot first and then every other."""
    names = list(prepared.planned.lanes)
    pilot = prepared.pilot
    return [names] if pilot is None else [[pilot], [n for n in names if n != pilot]]


def execute(study: StudyDir, prepared: Prepared, *, executor_name: str = "local", seed: int,
            show_progress: bool = False, console: Console | None = None,
            max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_start: StartSink | None = None) -> dict[str, dict[str, int]]:
    """Open (or create) every configuration's run directory and run every unfinished row; returns each
    store's counts. The caller holds the study's lock; `on_start` hears what is kept and what will run."""
    pilot = prepared.pilot

    def freeze_pilot_users(number: int, stores: Mapping[str, RunStore]) -> None:
        if pilot is not None:
            write_frozen_users(prepared.planned.protocol.study(), stores[pilot], pilot, study.frozen_user_file)

    stores = execute_lanes(prepared.planned, resume=True, seed=seed, executor_name=executor_name,
                           phases=phases(prepared), before_phase=freeze_pilot_users, show_progress=show_progress,
                           console=console, max_attempts=max_attempts, on_start=on_start)
    counts: dict[str, dict[str, int]] = {}
    for name, store in stores.items():
        with store:
            counts[name] = store.counts(max_attempts)
    return counts


def attempts_recorded(study: StudyDir, names: list[str]) -> int:
    """How many attempts the named configurations' run directories hold (0 for one not created yet)."""
    total = 0
    for name in names:
        if study.has_run(name):
            with RunStore.open(study.run_dir(name), read_only=True) as store:
                total += store.counts()["attempts"]
    return total
