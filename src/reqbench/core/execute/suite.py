"""The typed boundary between the runner and a protocol: `SuiteProtocol` (what the registry holds) and
`Suite` (one suite, loaded and validated once per process), base classes that declare every hook the rest
of reqbench calls, each with its default -- the one place a protocol author reads what a protocol may offer
(its study hook's own defaults: `core.protocol_study`). Nothing looks a hook up by name.

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
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import registry
from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.errors import InputError
from reqbench.core.execute.agent_step import STEP_TIMEOUT, AgentStep, StepSession, open_session, run_step
from reqbench.core.execute.environments import RowEnvironment
from reqbench.core.execute.shipping import ShippedSuite
from reqbench.core.execute.types import Outcomes as Outcomes  # re-exported: protocols import it from here
from reqbench.core.execute.types import Row, RowOutcome, RunOptions

if TYPE_CHECKING:
    from reqbench.core.environments.suites import DeclaredEnvironment
    from reqbench.core.execute.schedule import RepeatBarrier
    from reqbench.core.execute.settings import ProtocolOptions, ProtocolResult
    from reqbench.core.protocol_study import ProtocolStudy
    from reqbench.core.summary import Summary
    from reqbench.core.views import AttemptRecord, Block, RowView


@dataclass(frozen=True)
class RowContext:
    """What one row call gets besides the row: the run's options, the attempt's scratch directory
    (fresh, removed after the attempt; evidence goes into the outcome's artifacts), and the only way to run
    the agent: `step` (one run) or `session` (a conversation), see `core.execute.agent_step`."""

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




class Suite(ABC):
    """One loaded suite of a protocol. A protocol's loaded suite subclasses it and implements `plan`,
    `run_row` and `summarize`; the two hooks below have their defaults here."""

    protocol: SuiteProtocol
    """The protocol that loaded it (its ``name`` labels the run)."""
    path: Path

    @abstractmethod
    def plan(self, options: RunOptions) -> list[Row]:
        """Every row the options ask for; an `InputError` for options the protocol cannot run."""

    @abstractmethod
    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        """Run one row (the agent only through ``ctx.step`` / ``ctx.session``) and return its outcome."""

    @abstractmethod
    def summarize(self, outcomes: Outcomes) -> Summary:
        """The typed summary of a run's selected outcomes (`core.summary`)."""

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        """Re-run only the evaluation of a *pending* (or, for a regrade, scored) row on its frozen
        submission. Never re-runs the agent. Default: nothing to re-evaluate, `previous` stands."""
        return previous

    def environments(self) -> dict[str, DeclaredEnvironment]:
        """Task id -> the task environment its task file declares (`core.execute.environments`: built once
        before any row; every agent step of the row runs in its overlay, every check in the pristine tree).
        Default: none (the host's system directories, or the run's ``--environment``)."""
        return {}


class SuiteProtocol(ABC):
    """A protocol as the registry holds it (``reqbench.protocols`` entry points): every hook the rest of
    reqbench calls is declared here with its default, and nothing looks a hook up by name. A protocol,
    reqbench's or a plugin's, subclasses it, implements `detect`, `validate` and `load`, and overrides the
    hooks it has (`core.registry` refuses a protocol entry that is not a `SuiteProtocol`)."""

    name: str
    """The protocol's registered name (labels runs; prefixes its ``--agent-opt NAME.KEY`` settings)."""
    options_model: type[ProtocolOptions] | None = None
    """Its ``--agent-opt NAME.KEY`` settings (`core.execute.settings`), validated before anything is created;
    ``reqbench schema NAME-options`` prints it. None: the protocol takes no settings."""
    result_model: type[ProtocolResult] | None = None
    """The model every row's `RowOutcome.result` must fit (checked by the runner; ``reqbench schema
    NAME-row-result``). None: results are checked only for being JSON."""
    condition_context: str | None = None
    """The requirement-context key under which an ATIF export records a row's condition (SpecPath's
    ``revision``); None: the condition is not part of the context."""
    validation_note: str = ""
    """What ``reqbench validate`` adds to its verdict, e.g. what the validation ran."""

    @abstractmethod
    def detect(self, path: Path) -> bool:
        """True when `path` is a suite (or single task) of this protocol."""

    @abstractmethod
    def validate(self, path: Path) -> list[str]:
        """All problems found, each one sentence naming file, item and rule; [] when valid."""

    @abstractmethod
    def load(self, path: Path) -> Suite:
        """The suite at `path`, loaded once (`InputError` when it cannot be read)."""

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        """The bundled suite(s) and run options `reqbench demo` executes for this protocol. Default: none."""
        return []

    def warnings(self, path: Path) -> list[str]:
        """What ``reqbench validate`` warns about in a valid suite (one sentence each). Default: nothing."""
        return []

    def dataset_stats(self, path: Path) -> Summary | None:
        """The paper's dataset-statistics tables of the suite at `path`, computed from its files (``reqbench
        stats``). Default None: the command refuses the suite (exit 2)."""
        return None

    def repeat_barrier(self, options: RunOptions) -> RepeatBarrier | None:
        """The protocol's rule that a repeat starts only after the one before finished (SpecPath's), under
        `options` (`core.execute.schedule`). Default None: no barrier."""
        return None

    def unused_judge(self, options: RunOptions) -> str | None:
        """Why no row of `options` calls a judge, one sentence (a ``--judge`` is then refused:
        `core.execute.judge_use`); None when some row does. Default None: every run uses its judge."""
        return None

    def row_view(self, record: AttemptRecord) -> RowView:
        """The protocol's part of one attempt's row page, as typed blocks (`core.views`) the viewer and the
        HTML report draw. Default: nothing beyond the generic sections."""
        from reqbench.core.views import RowView

        return RowView(())

    def run_view(self, outcomes: Outcomes) -> tuple[Block, ...]:
        """Run-wide blocks above a run's rows (SpecPath's signature raster). Default: none."""
        return ()

    def study(self) -> ProtocolStudy:
        """What studies compare and show for this protocol (`core.protocol_study`): the paired value per unit
        of inference and its paper-shaped tables. Default: no paired value and no tables of its own (a study
        shows the generic tables)."""
        from reqbench.core.protocol_study import ProtocolStudy

        return ProtocolStudy()


def checked_protocol(found: object, name: str) -> SuiteProtocol:
    """`found` (a ``reqbench.protocols`` entry's value) as a `SuiteProtocol`; `InputError` naming the entry
    when it is not one, so a hook is never missing at the point it is called."""
    if not isinstance(found, SuiteProtocol):
        raise InputError(f"protocol {name!r} is a {type(found).__name__}, not a SuiteProtocol: a protocol "
                         "subclasses reqbench.protocols.base.SuiteProtocol", item="reqbench.protocols")
    return found


def load_protocol(name: str) -> SuiteProtocol:
    """The protocol registered as `name` (``reqbench.protocols`` entry points, or a dotted path)."""
    return checked_protocol(registry.load("protocols", name), name)


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
