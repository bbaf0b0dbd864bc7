"""The journey `SuiteProtocol`: what `reqbench validate / run / report / demo` call; `load` gives a
`LoadedSuite` (suite file and instances, read once) that plans, runs and summarises rows.

Rows are ``(instance, condition, agent, repeat)``. A condition is a persona preset name, a persona YAML
file (relative to the suite directory), or ``single-shot`` (B.2). Journey options travel in
``--agent-opt`` keys prefixed ``journey.`` (removed before the agent is built): ``journey.simulator``
(deterministic | llm), ``journey.simulator_model``, ``journey.max_turns``, ``journey.max_steps``,
``journey.frozen_user`` (a pilot's simulated user replayed where the conversation state matches,
`frozen_user`).

Every turn of a session is checkpointed in the run store (`checkpoints`). A harness failure in the middle
of a session (hidden tests that cannot run, a simulator that fails) is therefore *pending*: its
re-evaluation (``--resume``) continues the session after its last completed turn, from the stored
snapshots and states, without asking the assistant or the simulator again what they already answered.
Only where no checkpoint can be kept (a remote executor, an assistant session without
``checkpoint``/``restore``) is it *invalid* and the session re-run. A scored row is re-scored
(`reqbench regrade`) from its frozen transcript and per-turn snapshots (`outcome.rescore`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import HarnessError, InputError
from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.settings import ProtocolOptions, split_settings
from reqbench.core.execute.suite import Outcomes, RowContext, Suite, SuiteProtocol
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.protocols.base import marker_protocol
from reqbench.protocols.journey.assistants import open_session
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.checkpoints import Checkpoints
from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.frozen_user import FrozenUser, load_pilot
from reqbench.protocols.journey.models import DEFAULT_CONDITIONS, Instance, load_suite
from reqbench.protocols.journey.outcome import TRANSCRIPT, outcome_of, rescore
from reqbench.protocols.journey.personas import load_persona
from reqbench.protocols.journey.row_result import JourneyResult
from reqbench.protocols.journey.session import SessionLimits, resumable, run_session, run_single_shot
from reqbench.protocols.journey.simulators.base import UserSimulator

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy
    from reqbench.core.summary import Summary
    from reqbench.core.views import AttemptRecord, RowView

SINGLE_SHOT = "single-shot"


def _marker(path: Path) -> str | None:
    for name in ("suite.yaml", "instance.yaml"):
        if (path / name).is_file():
            return marker_protocol(path / name)
    return None


class JourneyOptions(ProtocolOptions):
    """SWE-Journey's run settings: ``--agent-opt journey.KEY=VALUE`` (defaults: the suite's, SWE-Journey B.1)."""

    simulator: Literal["deterministic", "llm"] | None = Field(None, description="The simulated user: the "
                                                              "offline rule-based one or a model.")
    simulator_model: str | None = Field(None, description="The simulated user's model (llm simulator).")
    max_turns: int | None = Field(None, ge=1, description="The shared turn limit of a session.")
    max_steps: int | None = Field(None, ge=1, description="The assistant's step limit per turn.")
    frozen_user: str | None = Field(None, min_length=1, description="A frozen simulated-user file "
                                    "(`journey.frozen_user`, written by a study's freeze_user_from): the "
                                    "pilot's user reactions are replayed whenever the conversation state "
                                    "matches, the simulator answers otherwise.")


def journey_options(options: RunOptions) -> tuple[JourneyOptions, dict[str, Any]]:
    """Split ``--agent-opt`` into (journey settings, the agent's own options)."""
    return split_settings(options.agent_options, "journey", JourneyOptions)


def make_simulator(kind: str, instance: Instance, condition: str, suite_dir: Path, seed: int,
                   model: str = "") -> UserSimulator:
    persona = load_persona(condition, base=suite_dir)
    if kind == "deterministic":
        from reqbench.protocols.journey.simulators.deterministic import DeterministicSimulator

        return DeterministicSimulator(instance, persona, seed=seed)
    if kind == "llm":
        from reqbench.protocols.journey.simulators.llm import LLMSimulator

        if not model:
            raise InputError("the llm simulator needs a model (suite.yaml simulator_model, or --agent-opt "
                             "journey.simulator_model=NAME)", item="journey.simulator_model")

        return LLMSimulator(instance, persona, model=model, seed=seed)
    raise InputError(f"unknown simulator {kind!r}; use deterministic or llm", item="journey.simulator")


class JourneyProtocol(SuiteProtocol):
    name = "journey"
    options_model = JourneyOptions
    """Its ``--agent-opt journey.KEY`` settings (`core.execute.settings`)."""
    result_model = JourneyResult
    """Its rows' `RowOutcome.result`."""

    def row_view(self, record: AttemptRecord) -> RowView:
        """The row page's journey part, as data (`journey/view.py`)."""
        from reqbench.protocols.journey.view import row_view

        return row_view(record)

    def detect(self, path: Path) -> bool:
        return _marker(Path(path)) == "journey"

    def validate(self, path: Path) -> list[str]:
        try:
            suite, instances = load_suite(Path(path))
            for cond in suite.conditions:
                if cond != SINGLE_SHOT:
                    load_persona(cond, base=Path(path))
        except InputError as exc:
            return [str(exc)]
        problems = []
        for inst in instances:
            report = calibrate(inst)
            problems += [f"{inst.root / 'instance.yaml'}: {f.sentence()}" for f in report.findings]
        return problems

    def load(self, path: Path) -> LoadedSuite:
        return LoadedSuite(self, Path(path))

    def dataset_stats(self, path: Path) -> Summary:
        """SWE-Journey's instance, subtask and test-node counts of the suite at `path` (`reqbench stats`)."""
        from reqbench.protocols.journey.stats import dataset_stats

        return dataset_stats(Path(path))

    def study(self) -> ProtocolStudy:
        """Its paired value and paper-shaped study tables (`protocols.journey.study`)."""
        from reqbench.protocols.journey.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        suite = bundled_suite("journey")
        return [(suite, RunOptions(agent=agent, conditions=DEFAULT_CONDITIONS, judge="word-overlap"))
                for agent in ("reference", "null")]


class LoadedSuite(Suite):
    """A journey suite with its suite file and instances loaded once."""

    def __init__(self, protocol: JourneyProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path
        self.suite, self.instances = load_suite(path)

    def plan(self, options: RunOptions) -> list[Row]:
        conditions = list(options.conditions) or self.suite.conditions
        for cond in conditions:
            if cond != SINGLE_SHOT:
                load_persona(cond, base=self.path)
        return [Row(inst.id, cond, options.agent, rep) for rep in range(options.repeats)
                for inst in self.instances for cond in conditions]

    def environments(self) -> dict[str, Any]:
        """The task environment each instance declares (``environment:`` in its instance.yaml; DESIGN §14)."""
        from reqbench.core.execute.environments import declared_environments

        return declared_environments((i.id, i.spec.environment, str(i.root / "instance.yaml"), i.root)
                                     for i in self.instances)

    def _instance(self, row: Row) -> Instance:
        instance = next((i for i in self.instances if i.id == row.task_id), None)
        if instance is None:
            raise InputError("no such instance in the suite", file=str(self.path), item=row.task_id)
        return instance

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        path, suite, options, work_dir = self.path, self.suite, ctx.options, ctx.work_dir
        instance = self._instance(row)
        settings, agent_options = journey_options(options)
        limits = SessionLimits(max_turns=settings.max_turns or suite.max_turns,
                               max_steps_per_turn=settings.max_steps or suite.max_steps_per_turn)
        workspace = make_workspace(instance.repo_dir, work_dir / "workspace")
        kept = False
        try:
            if row.condition == SINGLE_SHOT:
                session = open_session(ctx, instance, workspace, lambda: [s.id for s in instance.subtasks],
                                       agent_options)
                kept = False
                record = run_single_shot(instance, session, workspace, work_dir, limits)
                simulator_kind, simulator_model = "none", ""
            else:
                simulator_kind = settings.simulator or suite.simulator
                simulator_model = settings.simulator_model or suite.simulator_model
                sim = make_simulator(simulator_kind, instance, row.condition, Path(path),
                                     seed=options.seed + row.repeat, model=simulator_model)
                if settings.frozen_user:
                    sim = FrozenUser(sim, load_pilot(Path(settings.frozen_user), row))
                session = open_session(ctx, instance, workspace, lambda: list(sim.state.disclosed),
                                       agent_options)
                checkpoints = Checkpoints(row.key)
                kept = checkpoints.enabled and resumable(session)
                record = run_session(instance, row.condition, sim, session, workspace, work_dir, limits,
                                     checkpoints)
        except HarnessError as exc:
            if kept:  # every completed step is checkpointed: the session continues on re-evaluation
                return classified(Reason.CHECK_INFRASTRUCTURE, JourneyResult(frozen=False), f"harness: {exc}")
            return classified(Reason.INFRASTRUCTURE, detail=f"harness: {exc}")
        return outcome_of(record, instance, simulator_kind, options.judge,
                          simulator_model if simulator_kind == "llm" else "")

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        """A session stopped by the harness continues from its checkpoints; a stored session is re-scored
        from its transcript and snapshots (new judge; with ``recheck`` the hidden tests run again)."""
        if previous.status is RowStatus.INVALID:
            return previous
        if TRANSCRIPT not in previous.artifacts:
            return self.run_row(row, ctx)
        return rescore(previous, self._instance(row), ctx.options, ctx.work_dir)

    def summarize(self, outcomes: Outcomes) -> Summary:
        """Final F2P and Final P2P per persona are the headline (`summary`)."""
        from reqbench.protocols.journey.report import summarize_rows  # the end of a run only
        from reqbench.protocols.journey.summary import summary

        return summary(summarize_rows(outcomes))


PROTOCOL = JourneyProtocol()
