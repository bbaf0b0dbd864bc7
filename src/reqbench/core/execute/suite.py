"""The typed boundary between the runner and a protocol: `SuiteProtocol` (what the registry holds) and
`Suite` (one suite, loaded and validated once per process).

A protocol detects and validates suite directories and ``load``s one into a `Suite`; the suite plans rows,
runs one row (`run_row`), re-evaluates a pending row on its frozen submission (`reevaluate`) and
summarises outcomes into a typed `Summary`. Each row call gets a `RowContext` (the run's options and the
attempt's scratch directory), so a loaded suite holds no per-run state and one object serves every row.

Remote executors ship the suite's *content* (`shipping.ShippedSuite`) and the protocol object (stateless,
picklable), never the loaded suite: a worker loads the suite once per process (`load_shipped`).
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from reqbench.core import registry
from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.execute.environments import RowEnvironment
from reqbench.core.execute.shipping import ShippedSuite
from reqbench.core.execute.step import STEP_TIMEOUT, AgentStep, StepSession, open_session, run_step
from reqbench.core.execute.types import Row, RowOutcome, RunOptions

if TYPE_CHECKING:
    from reqbench.core.summary import Summary


@dataclass(frozen=True)
class RowContext:
    """What one row call gets besides the row: the run's options, the attempt's scratch directory
    (fresh, removed after the attempt; evidence goes into the outcome's artifacts), and the only way to run
    the agent: `step` (one run) or `session` (a conversation), see `core.execute.step`."""

    options: RunOptions
    work_dir: Path
    row: Row | None = None
    environment: RowEnvironment | None = None
    """The row's task environment: every agent step and session turn runs in its overlay, every check in
    the pristine one (`core.execute.environments`); None: the host's system directories."""

    def step(self, workspace: Path, inputs: AgentInputs, budget: Budget, *, answers: dict[str, Any] | None = None,
             agent_options: dict[str, Any] | None = None) -> AgentStep:
        """Run the row's agent once in `workspace` and classify how it ended. `answers` reach control agents
        only; `agent_options` replaces the run's (a protocol passes them without its own settings)."""
        opts = self.options.agent_options if agent_options is None else agent_options
        budget, opts = self._rerun_budget(budget, opts)
        if self.environment is None:
            return run_step(self.options.agent, opts, workspace, inputs, budget, answers)
        with self.environment.for_agent():
            return run_step(self.options.agent, opts, workspace, inputs, budget, answers)

    def _rerun_budget(self, budget: Budget, opts: dict[str, Any]) -> tuple[Budget, dict[str, Any]]:
        """A timeout re-run's longer budget (`RunOptions.agent_timeout`) replaces the protocol's and any
        ``step_timeout`` cap; otherwise both stay as given."""
        if self.options.agent_timeout is None:
            return budget, opts
        return (dataclasses.replace(budget, wall_seconds=self.options.agent_timeout),
                {k: v for k, v in opts.items() if k != STEP_TIMEOUT})

    def session(self, workspace: Path, *, answers: dict[str, Any] | None = None,
                agent_options: dict[str, Any] | None = None, rerun: Any = None) -> StepSession:
        """The row's agent as a conversation in one persistent workspace (each turn an `AgentStep`)."""
        opts = self.options.agent_options if agent_options is None else agent_options
        sample = self.row.key if self.row is not None else 0
        session = open_session(self.options.agent, opts, workspace, answers, sample=sample, rerun=rerun)
        if self.environment is not None:  # one overlay for the whole conversation (the row's)
            session.environment = self.environment.agent_mount()
        return session


Outcomes = list[tuple[Row, RowOutcome]]


@runtime_checkable
class Suite(Protocol):
    """One loaded suite of a protocol."""

    protocol: SuiteProtocol
    """The protocol that loaded it (its ``name`` labels the run)."""
    path: Path

    def plan(self, options: RunOptions) -> list[Row]:
        """Every row the options ask for; an `InputError` for options the protocol cannot run."""
        ...

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome: ...

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        """Re-run only the evaluation of a *pending* (or, for a regrade, scored) row on its frozen
        submission. Never re-runs the agent; a protocol with nothing to re-evaluate returns `previous`."""
        ...

    def summarize(self, outcomes: Outcomes) -> Summary: ...


@runtime_checkable
class SuiteProtocol(Protocol):
    """A protocol as the registry holds it (``reqbench.protocols`` entry points)."""

    name: str

    def detect(self, path: Path) -> bool:
        """True when `path` is a suite (or single task) of this protocol."""
        ...

    def validate(self, path: Path) -> list[str]:
        """All problems found, each one sentence naming file, item and rule; [] when valid."""
        ...

    def load(self, path: Path) -> Suite:
        """The suite at `path`, loaded once (`InputError` when it cannot be read)."""
        ...

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        """The bundled suite(s) and run options `reqbench demo` executes for this protocol."""
        ...

    # Suite v2 (optional for plugins, declared by reqbench's four): ``options_model`` -- a
    # `core.execute.settings.ProtocolOptions` for its ``--agent-opt NAME.KEY`` settings; ``result_model`` -- a
    # `ProtocolResult` every row's `RowOutcome.result` must fit (checked by the runner).
    # Optional for every protocol: ``dataset_stats(path) -> Summary`` -- the paper's dataset-statistics tables
    # of the suite at `path`, computed from its files (``reqbench stats``; reqbench's four declare it).
    # Optional: ``repeat_barrier(options) -> core.execute.schedule.RepeatBarrier | None`` -- the protocol's rule
    # that a repeat starts only after the one before finished (SpecPath's); without it, none.


def load_protocol(name: str) -> SuiteProtocol:
    """The protocol registered as `name` (``reqbench.protocols`` entry points, or a dotted path)."""
    return cast(SuiteProtocol, registry.load("protocols", name))


_LOADED: dict[tuple[str, str], Suite] = {}
_LOADED_LOCK = threading.Lock()


def load_shipped(protocol: SuiteProtocol, shipped: ShippedSuite) -> Suite:
    """The suite a remote row names, unpacked and loaded once per worker process (keyed by protocol name and
    content digest, so it is a cache of immutable content, not run state)."""
    key = (protocol.name, shipped.digest)
    with _LOADED_LOCK:
        found = _LOADED.get(key)
    if found is not None:
        return found
    suite = protocol.load(shipped.path())
    with _LOADED_LOCK:
        return _LOADED.setdefault(key, suite)
