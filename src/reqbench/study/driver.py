"""Executing a study: every configuration checked before anything starts, then the rows of all configurations
interleaved in one seeded order, each attempt recorded in its configuration's own run store.

* `prepare` (nothing is written): preflight of every configuration (no credential among its options,
  isolation, agent construction, its model priced under the protocol's dollar budget and allowed, its
  program, its endpoints), then the suite validated and loaded once, then every configuration's plan. Any
  failure is an `InputError` naming the configuration.
* `execute` runs one schedule over ``(configuration, row)`` items: within a repeat, the items of all
  configurations are shuffled together by the seed (`core.execute.schedule`), so provider load or the time
  of day favours no configuration; a barrier separates repeats, across all configurations. With frozen
  simulated users (``freeze_user_from``, `study.frozen`) the pilot's rows run first, then its users are
  written out, then every other configuration's rows. A batch is run
  by `core.execute.runner.run_lanes`, the runner's own loop, with one lane per configuration, so attempts,
  retries of invalid rows, re-evaluation of pending ones and the outcome taxonomy are exactly a run's.

Each run directory keeps the store-per-run contract (its own options, plan, lock, scratch and cache);
a SIGKILL at any point loses only the attempts in flight, and ``--resume`` runs exactly the rows that have
no finished attempt.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from reqbench import api
from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.execute.executor import make_executor
from reqbench.core.execute.lifecycle import open_or_resume
from reqbench.core.execute.options import with_work_dir
from reqbench.core.execute.preflight import AgentFacts, preflight
from reqbench.core.execute.price_source import price_sources
from reqbench.core.execute.progress import RunProgress
from reqbench.core.execute.runner import (
    TRASH,
    WORK_DIR,
    Lane,
    batch_context,
    remove_stale_attempt_dirs,
    run_lanes,
    ship_suite,
)
from reqbench.core.execute.schedule import barrier_note, repeat_barrier, schedule, schedule_facts
from reqbench.core.execute.scratch import run_scratch, scratch_base
from reqbench.core.execute.settings import check_settings
from reqbench.core.execute.suite import Suite, SuiteProtocol
from reqbench.core.execute.types import Row, RunOptions
from reqbench.core.store import RunStore
from reqbench.core.store.selection import DEFAULT_MAX_ATTEMPTS
from reqbench.core.workspace.discard import trash_in
from reqbench.protocols.lookup import protocol_for_suite
from reqbench.study.frozen import write_frozen_users
from reqbench.study.layout import StudyDir
from reqbench.study.spec import StudyFile


@dataclass(frozen=True)
class StudyItem:
    """One row of one configuration: what the study's schedule orders."""

    config: str
    row: Row

    @property
    def key(self) -> str:
        return f"{self.config}|{self.row.key}"

    @property
    def repeat(self) -> int:
        return self.row.repeat


@dataclass(frozen=True)
class Prepared:
    """Everything checked before a study writes anything: the suite (loaded once) and per configuration its
    options, preflight facts and plan."""

    protocol: SuiteProtocol
    suite: Suite
    options: dict[str, RunOptions]
    facts: dict[str, AgentFacts]
    plans: dict[str, list[Row]]
    pilot: str | None = None
    """The configuration whose simulated users the others replay (``freeze_user_from``): it runs first."""


def _named(name: str, exc: InputError) -> InputError:
    """`exc` with the configuration named first."""
    item = f"configuration {name!r}" + (f": {exc.item}" if exc.item else "")
    return InputError(exc.rule, file=exc.file, item=item)


def prepare(spec: StudyFile, study_path: Path, *, concurrency: int = 1, offline: bool = False,
            on_problem: Callable[[str], None] | None = None, progress: Any = None) -> Prepared:
    """Preflight every configuration, validate and load the suite once, plan every configuration."""
    frozen = StudyDir(Path(study_path).absolute()).frozen_user_file if spec.freeze_user_from else None
    options = {c.name: spec.run_options(c, concurrency=concurrency, offline=offline, frozen_user=frozen)
               for c in spec.configurations}
    suite_path = api.resolve_suite(spec.suite)
    found = protocol_for_suite(suite_path)  # detection only: its settings give each configuration's budget
    facts: dict[str, AgentFacts] = {}
    for name, opts in options.items():
        try:
            facts[name] = preflight(opts, check_settings(found, opts.agent_options))
        except InputError as exc:
            raise _named(name, exc) from None
    protocol: SuiteProtocol = api.validate(suite_path, on_problem=on_problem, progress=progress)
    if spec.freeze_user_from and protocol.name != "journey":
        raise InputError(f"frozen simulated users are a journey feature; this suite is {protocol.name}",
                         item="freeze_user_from")
    loaded = protocol.load(suite_path)
    plans: dict[str, list[Row]] = {}
    for name, opts in options.items():
        try:
            plans[name] = loaded.plan(opts)
        except InputError as exc:
            raise _named(name, exc) from None
    return Prepared(protocol, loaded, options, facts, plans, spec.freeze_user_from)


def interleaved(plans: dict[str, list[Row]], seed: int, *, barrier: bool = True) -> list[list[StudyItem]]:
    """The study's schedule: the rows of every configuration shuffled together within each repeat; one batch
    per repeat with a `barrier` (the protocol's rule for any configuration), else one batch."""
    return schedule([StudyItem(name, row) for name, rows in plans.items() for row in rows], seed, barrier=barrier)


def phases(prepared: Prepared) -> list[dict[str, list[Row]]]:
    """The plans in the order they run: all at once, or the pilot's first and then every other's."""
    pilot = prepared.pilot
    if pilot is None:
        return [prepared.plans]
    return [{pilot: prepared.plans[pilot]}, {n: rows for n, rows in prepared.plans.items() if n != pilot}]


StartSink = Callable[[dict[str, tuple[int, int]]], None]
"""Told, before any row runs: configuration -> (rows kept as finished, rows this invocation will run)."""


def execute(study: StudyDir, prepared: Prepared, *, executor_name: str = "local", seed: int,
            show_progress: bool = False, console: Console | None = None,
            max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_start: StartSink | None = None) -> dict[str, dict[str, int]]:
    """Open (or create) every configuration's run directory and run every unfinished row; returns each
    store's counts. The caller holds the study's lock; `on_start` hears what is kept and what will run."""
    from reqbench.core.execute.environments import prepare as prepare_environments

    concurrency = max(o.concurrency for o in prepared.options.values())
    environments = {name: prepare_environments(prepared.suite, opts)  # built once, before any row
                    for name, opts in prepared.options.items()}
    executor = make_executor(executor_name, concurrency)
    try:
        with ExitStack() as stack:
            stores: dict[str, RunStore] = {}
            scratch: dict[str, Path] = {}
            tempdirs.sweep_places(scratch_base())  # every temporary folder a killed reqbench process left
            for name, opts in prepared.options.items():
                store, _ = open_or_resume(study.run_dir(name), prepared.protocol.name, prepared.suite.path, opts,
                                          resume=True, provenance={
                                              "agent": prepared.facts[name].to_json(),
                                              "schedule": schedule_facts(prepared.protocol, opts),
                                              "prices": price_sources(opts),
                                              "study": {"dir": str(study.path), "configuration": name},
                                              **({"environments": environments[name].keys()}
                                                 if environments[name] else {})})
                stack.callback(store.close)
                stack.enter_context(store.exclusive())
                store.add_plan(prepared.plans[name])
                stores[name] = store
                scratch[name] = run_scratch(store.run_dir)
                for folder in {scratch[name], store.run_dir / WORK_DIR}:  # a killed run's, wherever it kept them
                    remove_stale_attempt_dirs(folder)
                stack.callback(remove_stale_attempt_dirs, scratch[name])
            to_run = {name: len(s.rows_to_run(max_attempts)) for name, s in stores.items()}
            total = sum(to_run.values())
            if on_start is not None:
                on_start({name: (len(prepared.plans[name]) - to_run[name], to_run[name]) for name in stores})
            remote = bool(getattr(executor, "remote", False))
            barrier = next((b for o in prepared.options.values() if (b := repeat_barrier(prepared.protocol, o))),
                           None)  # the protocol's rule for any configuration holds for the interleaved order
            note = barrier_note(barrier, interleaved(prepared.plans, seed, barrier=barrier is not None), concurrency)
            if note is not None and console is not None:
                console.print(note, markup=False, highlight=False)
            shipped = ship_suite(executor, prepared.suite.path) if remote else None
            with RunProgress(total, enabled=show_progress, console=console) as bar, ExitStack() as trash:
                for name in stores:
                    trash.enter_context(trash_in(scratch[name] / TRASH))
                for number, plans in enumerate(phases(prepared)):
                    if number == 1 and prepared.pilot is not None:
                        write_frozen_users(stores[prepared.pilot], prepared.pilot, study.frozen_user_file)
                    for batch in interleaved(plans, seed, barrier=barrier is not None):
                        lanes = {name: Lane(store, None if shipped else prepared.suite,
                                            with_work_dir(prepared.options[name], store.run_dir / WORK_DIR),
                                            batch_context(store, prepared.protocol, prepared.options[name],
                                                          executor, shipped, environments[name]), scratch[name])
                                 for name, store in stores.items()}
                        run_lanes([(lanes[item.config], item.row) for item in batch], executor, bar,
                                  max_attempts)
            return {name: store.counts(max_attempts) for name, store in stores.items()}
    finally:
        executor.shutdown()


def attempts_recorded(study: StudyDir, names: list[str]) -> int:
    """How many attempts the named configurations' run directories hold (0 for one not created yet)."""
    total = 0
    for name in names:
        if study.has_run(name):
            with RunStore.open(study.run_dir(name), read_only=True) as store:
                total += store.counts()["attempts"]
    return total
