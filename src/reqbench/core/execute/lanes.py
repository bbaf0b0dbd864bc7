"""One path runs rows: a run (`reqbench run`, `reqbench.run()`) is one lane, a study is one lane per
configuration; both are planned by `plan_lanes` and executed by `execute_lanes`, so every check applies to
both, in one place.

A *lane* is one run directory with its options, its preflight facts, its planned rows and its task
environments. `plan_lanes` writes nothing: per lane, no credential among its options, the run directory can
take the run (`lifecycle.check_run_dir`), the protocol settings are known and typed (`settings`), a judge is
one a row calls (`judge_use`), then `preflight` (isolation, agent, model checks, endpoints); then the suite
is validated and loaded once, every lane plans its rows and builds (or finds) its environments, before any
row. A failure is one `InputError`, naming the lane when it has a name (a study's configuration).

`execute_lanes` opens (or resumes) every lane's run directory with its provenance, sweeps the temporary
folders killed processes left, and runs the rows of all lanes in one seeded order: within a repeat the
``(lane, row)`` items of every lane are shuffled together (`schedule`), with a barrier between repeats where
the protocol's rule asks for one. `phases` run one after another (a study's pilot first); each attempt is
recorded in its own lane's store by the runner's loop (`runner.run_lanes`). A run directory this call
created is removed again when the call fails before its first attempt there is stored.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.execute.credentials import refuse_inline_credentials
from reqbench.core.execute.environments import RunEnvironments
from reqbench.core.execute.environments import prepare as prepare_environments
from reqbench.core.execute.executor import Executor, LocalExecutor, make_executor
from reqbench.core.execute.judge_use import check_judge_used
from reqbench.core.execute.lifecycle import check_run_dir, discard_if_empty, open_or_resume
from reqbench.core.execute.options import with_work_dir
from reqbench.core.execute.preflight import AgentFacts, preflight
from reqbench.core.execute.price_source import price_sources
from reqbench.core.execute.progress import RunProgress
from reqbench.core.execute.run_inputs import PROVENANCE_KEY as INPUTS
from reqbench.core.execute.run_inputs import run_inputs
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
from reqbench.core.sandbox import isolation_gate
from reqbench.core.store import RunStore
from reqbench.core.store.selection import DEFAULT_MAX_ATTEMPTS
from reqbench.core.workspace.discard import trash_in

if TYPE_CHECKING:
    from rich.console import Console

ProblemSink = Callable[[str], None]


@dataclass(frozen=True)
class LaneSpec:
    """What a caller asks for: a run directory and its options; `name` is the lane's name in errors and in the
    schedule (a study's configuration; empty for a run); `provenance` adds facts to the run's provenance."""

    run_dir: Path
    options: RunOptions
    name: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedLane:
    """A lane after every check: its preflight facts, its planned rows and its environments (built)."""

    spec: LaneSpec
    facts: AgentFacts
    rows: list[Row]
    environments: RunEnvironments
    inputs: dict[str, Any] = field(default_factory=dict)
    """What the lane reads from outside the suite (`run_inputs`), recorded in its provenance."""


@dataclass(frozen=True)
class Planned:
    """Every lane checked and planned against the suite, loaded once; nothing written yet."""

    protocol: SuiteProtocol
    suite: Suite
    lanes: dict[str, PlannedLane]


@dataclass(frozen=True)
class LaneItem:
    """One row of one lane: what the schedule orders (keys of a named lane are prefixed by its name)."""

    lane: str
    row: Row

    @property
    def key(self) -> str:
        return f"{self.lane}|{self.row.key}" if self.lane else self.row.key

    @property
    def repeat(self) -> int:
        return self.row.repeat


@contextmanager
def naming(lane: str) -> Iterator[None]:
    """An `InputError` raised inside, with the lane (a study's configuration) named first."""
    try:
        yield
    except InputError as exc:
        if not lane:
            raise
        item = f"configuration {lane!r}" + (f": {exc.item}" if exc.item else "")
        raise InputError(exc.rule, file=exc.file, item=item) from None


def plan_lanes(suite_path: Path, specs: Sequence[LaneSpec], *, resume: bool, detect: Callable[[Path], SuiteProtocol],
               validate: Callable[..., SuiteProtocol], on_problem: ProblemSink | None = None, progress: Any = None,
               check_protocol: Callable[[SuiteProtocol], None] | None = None) -> Planned:
    """Check every lane, validate and load the suite once, plan every lane and build its environments (see the
    module docstring). The protocols live above core, so the caller supplies them: `detect(suite)` finds the
    suite's protocol (its settings and judge rule are checked before validation), `validate(suite,
    on_problem=, progress=)` returns it validated, and `check_protocol` may refuse it before the suite loads."""
    for spec in specs:
        with naming(spec.name):
            opts = spec.options
            refuse_inline_credentials(opts.agent, opts.agent_options, opts.judge)  # before a message repeats them
            check_run_dir(spec.run_dir, suite_path, opts, resume=resume)  # seconds, before minutes of validation
    found = detect(suite_path)
    facts: dict[str, AgentFacts] = {}
    for spec in specs:
        with naming(spec.name):
            dollar_budget = check_settings(found, spec.options.agent_options)  # a mistyped PROTOCOL.KEY first
            check_judge_used(found, spec.options)
            facts[spec.name] = preflight(spec.options, dollar_budget)
    protocol: SuiteProtocol = validate(suite_path, on_problem=on_problem, progress=progress)
    if check_protocol is not None:
        check_protocol(protocol)
    loaded = protocol.load(suite_path)
    lanes: dict[str, PlannedLane] = {}
    for spec in specs:
        with naming(spec.name):
            rows = loaded.plan(spec.options)  # bad options surface before anything is written
            lanes[spec.name] = PlannedLane(spec, facts[spec.name], rows,
                                           prepare_environments(loaded, spec.options, progress),
                                           run_inputs(loaded, spec.options))
    return Planned(protocol, loaded, lanes)


PhaseHook = Callable[[int, Mapping[str, RunStore]], None]
"""Called before each phase after the first with its number and the open stores (a study's frozen users)."""
StartSink = Callable[[dict[str, tuple[int, int]]], None]
"""Told, before any row runs: lane -> (rows kept as finished, rows this invocation will run)."""


def interleaved(plans: Mapping[str, list[Row]], seed: int, *, barrier: bool) -> list[list[LaneItem]]:
    """The rows of every lane shuffled together within each repeat; one batch per repeat with a `barrier`,
    else one batch."""
    return schedule([LaneItem(name, row) for name, rows in plans.items() for row in rows], seed, barrier=barrier)


@dataclass(frozen=True)
class OpenLane:
    """A lane whose run directory is open: its store, its options as its rows see them (``work_dir`` set), its
    planned rows and its environments."""

    store: RunStore
    options: RunOptions
    rows: list[Row]
    environments: RunEnvironments | None = None


def execute_lanes(planned: Planned, *, resume: bool, seed: int, executor_name: str = "local",
                  phases: Sequence[Sequence[str]] | None = None, before_phase: PhaseHook | None = None,
                  show_progress: bool = False, console: Console | None = None,
                  max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_start: StartSink | None = None) -> dict[str, RunStore]:
    """Open or resume every lane's run directory and run every unfinished row (module docstring); returns the
    open stores by lane (the caller closes them). On failure each store is closed, and removed when this
    call created it and no attempt was stored."""
    lanes = planned.lanes
    executor = make_executor(executor_name, max(lane.spec.options.concurrency for lane in lanes.values()))
    stores: dict[str, RunStore] = {}
    created: dict[str, bool] = {}
    try:
        try:
            for name, lane in lanes.items():
                stores[name], created[name] = _open(planned, lane, resume)
            run_open_lanes(planned.protocol, planned.suite,
                           {name: OpenLane(store, with_work_dir(lanes[name].spec.options, store.run_dir / WORK_DIR),
                                           lanes[name].rows, lanes[name].environments)
                            for name, store in stores.items()},
                           executor, seed=seed, phases=phases, before_phase=before_phase,
                           show_progress=show_progress, console=console, max_attempts=max_attempts,
                           on_start=on_start)
        except BaseException:
            for name, store in stores.items():
                if not discard_if_empty(store, created[name]):
                    store.close()
            raise
    finally:
        executor.shutdown()
    return stores


def _open(planned: Planned, lane: PlannedLane, resume: bool) -> tuple[RunStore, bool]:
    opts = lane.spec.options
    return open_or_resume(lane.spec.run_dir, planned.protocol.name, planned.suite.path, opts, resume=resume,
                          provenance={"agent": lane.facts.to_json(),
                                      "schedule": schedule_facts(planned.protocol, opts),
                                      "prices": price_sources(opts),
                                      **lane.spec.provenance,
                                      **({"environments": lane.environments.keys()} if lane.environments else {}),
                                      **({INPUTS: lane.inputs} if lane.inputs else {})})


def execute_run(store: RunStore, suite: Suite, options: RunOptions, *,
                rows: list[Row] | None = None, executor: Executor | None = None, show_progress: bool = False,
                console: Console | None = None, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                environments: RunEnvironments | None = None) -> dict[str, int]:
    """Run every unfinished row of the open run `store` as one lane (`run_open_lanes`): `rows` is the
    protocol's plan when the caller already has it (else it is planned here); `options` are the rows' own
    (``work_dir`` as the caller set it). A real agent without bubblewrap is refused (`isolation_gate`) unless
    the options say ``unsafe_no_sandbox``. Returns `store.counts()`."""
    isolation_gate(options.agent, unsafe_no_sandbox=options.unsafe_no_sandbox)
    own = executor is None
    executor = executor or LocalExecutor(options.concurrency)
    try:
        run_open_lanes(suite.protocol, suite,
                       {"": OpenLane(store, options, suite.plan(options) if rows is None else rows, environments)},
                       executor, seed=options.seed, show_progress=show_progress, console=console,
                       max_attempts=max_attempts)
    finally:
        if own:
            executor.shutdown()
    return store.counts(max_attempts)


def run_open_lanes(protocol: SuiteProtocol, suite: Suite, lanes: Mapping[str, OpenLane], executor: Executor, *,
                   seed: int, phases: Sequence[Sequence[str]] | None = None, before_phase: PhaseHook | None = None,
                   show_progress: bool = False, console: Console | None = None,
                   max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_start: StartSink | None = None) -> None:
    """Store every lane's plan and run its unfinished rows in the lanes' one seeded order (module docstring),
    holding each store exclusively; resumable at any point (only complete attempts are stored)."""
    concurrency = max(lane.options.concurrency for lane in lanes.values())
    with ExitStack() as stack:
        scratch: dict[str, Path] = {}
        for lane in lanes.values():
            stack.enter_context(lane.store.exclusive())
            lane.store.add_plan(lane.rows)
        tempdirs.sweep_places(scratch_base())  # every temporary folder a killed reqbench process left
        for name, lane in lanes.items():
            scratch[name] = run_scratch(lane.store.run_dir)
            for folder in {scratch[name], lane.store.run_dir / WORK_DIR}:  # a killed run's, wherever it kept them
                remove_stale_attempt_dirs(folder)
            stack.callback(remove_stale_attempt_dirs, scratch[name])
        to_run = {name: len(lane.store.rows_to_run(max_attempts)) for name, lane in lanes.items()}
        if on_start is not None:
            on_start({name: (len(lane.rows) - to_run[name], to_run[name]) for name, lane in lanes.items()})
        barrier = next((b for lane in lanes.values() if (b := repeat_barrier(protocol, lane.options))),
                       None)  # the protocol's rule for any lane holds for the interleaved order
        plans = {name: lane.rows for name, lane in lanes.items()}
        note = barrier_note(barrier, interleaved(plans, seed, barrier=barrier is not None), concurrency)
        if note is not None and console is not None:
            console.print(note, markup=False, highlight=False)
        elif note is not None:  # said even by a quiet run: it is why the run takes longer
            print(note, file=sys.stderr)
        shipped = ship_suite(executor, suite.path) if getattr(executor, "remote", False) else None
        with RunProgress(sum(to_run.values()), enabled=show_progress, console=console) as bar, ExitStack() as trash:
            for name in lanes:
                trash.enter_context(trash_in(scratch[name] / TRASH))  # finished attempt folders, removed later
            for number, names in enumerate(phases or [list(lanes)]):
                if number and before_phase is not None:
                    before_phase(number, {name: lane.store for name, lane in lanes.items()})
                for batch in interleaved({name: plans[name] for name in names}, seed, barrier=barrier is not None):
                    ran = {name: Lane(lane.store, None if shipped else suite, lane.options,
                                      batch_context(lane.store, protocol, lane.options, executor, shipped,
                                                    lane.environments), scratch[name])
                           for name, lane in lanes.items()}
                    run_lanes([(ran[item.lane], item.row) for item in batch], executor, bar, max_attempts)
