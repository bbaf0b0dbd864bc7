"""The runner's loop: run (or re-evaluate) each unfinished row of a batch and record it in its lane's store
(`run_lanes`); `core.execute.lanes` plans the lanes, stores their plans and orders their rows.

Per row and invocation the driver does, from the row's stored attempts (`store.selection.next_step`):

* ``RUN``: run the agent (`Suite.run_row`); an ``invalid`` result whose reason re-runs the agent (a provider
  limit or infrastructure, `outcomes.reruns_agent`) is retried at the same budget until a non-invalid
  result or `max_attempts` invalid attempts (SpecPath provider-limit retries); any other is attrition;
* ``REEVALUATE``: the selected attempt is ``pending`` from an earlier invocation: re-run only its
  evaluation on the frozen submission (`Suite.reevaluate`), once per invocation, never the agent;
* ``DONE``: nothing.

An exception escaping a row is a harness bug: it becomes an ``invalid`` attempt (reason
``harness_exception``) with the traceback in
`detail`, and the run goes on. An `InputError` is the user's (bad agent name, bad option): no new rows
start, rows in flight are recorded, and the error is raised. The driver thread writes rows and attempts.

Each row call carries a `RunContext` (`core.execute.context`) with the run state a row needs: model
clients inside local rows add their calls to the store's record/replay cache directly; remote rows replay
from a shipped snapshot and return the calls they recorded, which the driver writes. With
``RunOptions.offline`` a call that was never recorded raises `OfflineCacheMiss`, an `InputError`: the run
stops with exit 2 and the row keeps no attempt, so a later online ``--resume`` runs it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import traceback
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import idle
from reqbench.core.errors import InputError
from reqbench.core.execute.context import RunContext, bind
from reqbench.core.execute.environments import RunEnvironments, attempt_environment
from reqbench.core.execute.executor import Executor
from reqbench.core.execute.outcomes import Reason, check_reason
from reqbench.core.execute.progress import RunProgress
from reqbench.core.execute.results import OpenResult, ProtocolResult, result_model_of
from reqbench.core.execute.scratch import RUN_SCRATCH
from reqbench.core.execute.shipping import ShippedSuite, pack_suite
from reqbench.core.execute.suite import RowContext, Suite, SuiteProtocol, load_shipped
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.hashing import sha256_text
from reqbench.core.llm.cache import as_response_cache
from reqbench.core.llm.gateway.recorder import ModelCall, StoreRecorder
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.llm.ledger import row_ledger
from reqbench.core.llm.pricing import RunPricing
from reqbench.core.store.runstore import RunStore, utc_now
from reqbench.core.store.selection import DEFAULT_MAX_ATTEMPTS, NextStep, next_step
from reqbench.core.workspace.discard import discard
from reqbench.core.workspace.fileio import remove_tree
from reqbench.core.workspace.overlay import release_under

if TYPE_CHECKING:
    pass

WORK_DIR = RUN_SCRATCH
"""The run directory's scratch folder: `RunOptions.work_dir` for protocols, and per-attempt directories
where no memory-backed scratch is available (`scratch.run_scratch`)."""
_ATTEMPT_DIR = re.compile(r"^[0-9a-f]{16}-[0-9a-f]{8}$")


@dataclass
class AttemptReport:
    """What one attempt sends back to the driver (picklable, so remote executors can return it)."""

    outcome: RowOutcome
    kind: str
    started: str
    finished: str
    input_error: InputError | None = None
    model_calls: dict[str, Any] = field(default_factory=dict)
    """Model calls a remote row recorded (``{key: record}``), for the driver to add to the run store."""
    calls: list[ModelCall] = field(default_factory=list)
    """The ``model_calls`` rows (usage, cost) of a remote row's gateway and chat client, for the driver."""


def run_attempt(suite: Suite | None, row: Row, options: RunOptions, step: NextStep, previous: RowOutcome | None,
                work_dir: Path, context: RunContext | None = None) -> AttemptReport:
    """Run one attempt of `row` in a fresh scratch directory (removed afterwards; evidence lives in the
    outcome's artifacts) with the run's `context` bound. Never raises for a bug: the traceback becomes
    an invalid outcome. A remote context supplies the suite (`suite` is then None: the loaded object never
    ships) and a worker-local scratch directory."""
    context = context or RunContext(offline=options.offline)
    if context.suite is not None:
        scratch = context.scratch() / WORK_DIR
        work_dir = scratch / work_dir.name
        options = dataclasses.replace(options, work_dir=scratch)
    with bind(context) as recorder, idle.working():
        report = _attempt(suite, context, row, options, step, previous, work_dir)
    if recorder is not None:
        report.model_calls = recorder.recorded
        report.calls = recorder.calls.calls()
    return report


def keep_remote_records(store: RunStore, report: AttemptReport) -> None:
    """Write what a remote attempt recorded into the run store: its model calls, then its cache entries (which
    share the calls' parts, so what the row added is counted on its calls)."""
    if report.calls:
        recorder = StoreRecorder.for_store(store)
        for call in report.calls:
            recorder.record(call)
    for key, record in report.model_calls.items():
        store.put_cached("llm", key, record)


def _attempt(suite: Suite | None, context: RunContext, row: Row, options: RunOptions, step: NextStep,
             previous: RowOutcome | None, work_dir: Path) -> AttemptReport:
    kind = "reevaluate" if step == NextStep.REEVALUATE else "run"
    started = utc_now()
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        if context.suite is not None and context.protocol is not None:
            suite = load_shipped(context.protocol, context.suite)
        if suite is None:
            raise TypeError("a local attempt needs its loaded suite")
        # model calls of the row's agents are recorded under its key, at the run's prices; failures the
        # harness observes during the attempt go to its ledger (`core.execute.verdict`); its agent steps run
        # in an overlay of its environment, its checks in the pristine one (`core.execute.environments`)
        pricing = RunPricing.from_json(options.prices, options.allow_unpriced)
        with row_scope(row.key, pricing, options.allow_provider_tools), row_ledger(), \
                attempt_environment(context.environments, row, work_dir) as environment:
            ctx = RowContext(options, work_dir, row, environment)
            if step == NextStep.REEVALUATE:
                assert previous is not None
                outcome = suite.reevaluate(row, previous, ctx)
            else:
                outcome = suite.run_row(row, ctx)
        _check_outcome(outcome, f"{suite.protocol.name}.{'reevaluate' if kind == 'reevaluate' else 'run_row'}",
                       result_model_of(suite.protocol))
    except InputError as exc:
        return AttemptReport(RowOutcome(RowStatus.INVALID, detail=str(exc)), kind, started, utc_now(), exc)
    except (Exception, SystemExit):
        outcome = RowOutcome(RowStatus.INVALID, result=ProtocolResult(harness_exception=True),
                             detail=traceback.format_exc(), reason=Reason.HARNESS_EXCEPTION)
    finally:
        release_under(work_dir)  # overlay workspaces a protocol left mounted in this thread's namespace
        discard(work_dir)  # removed in the background (the outcome holds the evidence)
    return AttemptReport(outcome, kind, started, utc_now())


def _check_outcome(outcome: Any, where: str, result_model: type[ProtocolResult] = OpenResult) -> None:
    """A malformed outcome is a bug of the protocol: caught here so it becomes an invalid attempt
    instead of failing later inside the store's transaction. The result becomes the protocol's declared
    `result_model` (`core.execute.settings.ProtocolResult`): an instance of it is kept, a result built as
    another model or a mapping is validated into it (a ValidationError names the field)."""
    if not isinstance(outcome, RowOutcome):
        raise TypeError(f"{where} returned {type(outcome).__name__}, not RowOutcome")
    outcome.status = RowStatus(outcome.status)
    check_reason(outcome)
    if not isinstance(outcome.result, result_model):
        outcome.result = result_model.model_validate(outcome.result.stored())
    json.dumps(outcome.result.stored(), sort_keys=True)  # exactly as the store will write it
    for name, blob in outcome.artifacts.items():
        if not isinstance(blob, bytes):
            raise TypeError(f"{where}: artifact {name!r} is {type(blob).__name__}, not bytes")


def ship_suite(executor: Executor, suite_path: Path) -> ShippedSuite:
    digest, blob = pack_suite(suite_path)
    return ShippedSuite(digest, suite_path.name, executor.put(blob))


def batch_context(store: RunStore, protocol: SuiteProtocol, options: RunOptions, executor: Executor,
                  shipped: ShippedSuite | None, environments: RunEnvironments | None = None) -> RunContext:
    """The context of the next batch's rows: the store's cache itself (local), or a snapshot of the model
    calls recorded so far and the shipped suite (remote; refreshed per batch, so a repeat replays what
    earlier repeats recorded)."""
    if shipped is None:
        return RunContext(offline=options.offline, cache=as_response_cache(store, kind="llm"),
                          environments=environments)
    return RunContext(offline=options.offline, replay=executor.put(store.cached_items("llm")), suite=shipped,
                      protocol=protocol, run_id=sha256_text(str(store.run_dir.resolve()))[:16],
                      environments=environments)


RECORD_DEFER_SECONDS = 0.05
"""How long the driver may hold finished attempts before recording them, waiting for a moment when no
row thread is working (`core.idle`): the store's transaction then does not compete for the interpreter
lock with a row's own harness work -- a row that just started sets up its workspaces right then, for a
few ms. A row still working after this (an agent talking to a model, a long set-up) does not hold
recording back any longer."""
TRASH = ".trash"
"""The run scratch's folder of finished trees awaiting removal (`workspace.discard`)."""


def _attempt_dir(work_root: Path, row: Row) -> Path:
    return work_root / f"{sha256_text(row.key)[:16]}-{uuid.uuid4().hex[:8]}"


def remove_stale_attempt_dirs(work_root: Path) -> None:
    """Scratch directories of attempts that a killed process left behind (only ours: other entries of
    ``work/``, such as a protocol's cache under `RunOptions.work_dir`, are kept)."""
    if not work_root.is_dir():
        return
    for entry in work_root.iterdir():
        if (_ATTEMPT_DIR.match(entry.name) or entry.name == TRASH) and entry.is_dir():
            remove_tree(entry)  # also opens folders an agent closed (mode 000), which rmtree leaves
    if not any(work_root.iterdir()):
        work_root.rmdir()


@dataclass(frozen=True)
class Lane:
    """One run directory's share of a batch: its store, its loaded suite (None when the suite was shipped to
    remote workers), the run's options, the batch's `RunContext` and the root of its attempt folders. A run
    has one lane; a study (`reqbench.study`) has one per configuration, each recorded in its own store."""

    store: RunStore
    suite: Suite | None
    options: RunOptions
    context: RunContext
    work_root: Path


def run_lanes(batch: list[tuple[Lane, Row]], executor: Executor, progress: RunProgress,
              max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> None:
    """Run one repeat's rows, in the given order, to the end of this invocation; returns only when none is in
    flight. Each attempt is recorded in its own lane's store (one transaction each, by this thread)."""
    in_flight: dict[Future[AttemptReport], tuple[Lane, Row]] = {}
    fatal: InputError | None = None

    def submit(lane: Lane, row: Row, step: NextStep) -> None:
        previous = lane.store.selected_outcome(row) if step == NextStep.REEVALUATE else None
        work_dir = _attempt_dir(lane.work_root, row)
        future = executor.submit(run_attempt, lane.suite, row, lane.options, step, previous, work_dir,
                                 lane.context)
        in_flight[future] = (lane, row)

    for lane, row in batch:
        step = next_step(lane.store.attempts(row), max_attempts)
        if step != NextStep.DONE:
            submit(lane, row, step)
    while in_flight:
        done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
        idle.idle(timeout=RECORD_DEFER_SECONDS)  # record while the rows wait on their processes
        for future in done:
            lane, row = in_flight.pop(future)
            if future.cancelled():
                continue
            try:
                report = future.result()
            except Exception:  # the executor itself failed (remote worker lost, ...): infrastructure
                report = AttemptReport(RowOutcome(RowStatus.INVALID, result=ProtocolResult(executor_error=True),
                                                  detail=traceback.format_exc(),
                                                  reason=Reason.INFRASTRUCTURE),
                                       "run", utc_now(), utc_now())
            keep_remote_records(lane.store, report)
            if report.input_error is not None:
                fatal = fatal or report.input_error
                for other in in_flight:
                    other.cancel()
                continue
            lane.store.record_attempt(row, report.outcome, kind=report.kind, started=report.started,
                                      finished=report.finished)
            step = next_step(lane.store.attempts(row), max_attempts)
            if step == NextStep.RUN and fatal is None:
                submit(lane, row, step)  # a provider limit below the attempt budget: retry at the same budget
            else:
                selected = lane.store.selected_attempt(row)
                progress.row_ended(selected.status.value if selected else "pending")
    if fatal is not None:
        raise fatal

