"""The journey `SuiteProtocol`: what `reqbench validate / run / report / demo` call; `load` gives a
`LoadedSuite` (suite file and instances, read once) that plans, runs and summarises rows.

Rows are ``(instance, condition, agent, repeat)``. A condition is a persona preset name, a persona YAML
file (relative to the suite directory), or ``single-shot`` (B.2). Journey options travel in
``--agent-opt`` keys prefixed ``journey.`` (removed before the agent is built): ``journey.simulator``
(deterministic | llm), ``journey.simulator_model``, ``journey.max_turns``, ``journey.max_steps``.

A harness failure in the middle of a session (hidden tests that cannot run) cannot be re-evaluated
without re-running the assistant, so such a row is *invalid* (retried), never scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import HarnessError, InputError
from reqbench.core.execute.outcomes import Reason, classified, provider_reason
from reqbench.core.execute.suite import Outcomes, RowContext
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.hashing import pretty_json
from reqbench.core.summary import Summary
from reqbench.protocols.base import marker_protocol
from reqbench.protocols.journey.assistants import open_session
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.capability import session_capabilities
from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.metrics import final_confidence, session_metrics
from reqbench.protocols.journey.models import Instance, load_suite
from reqbench.protocols.journey.personas import PRESET_NAMES, load_persona
from reqbench.protocols.journey.report import summarize_rows
from reqbench.protocols.journey.session import SessionLimits, run_session, run_single_shot
from reqbench.protocols.journey.simulators.base import UserSimulator
from reqbench.protocols.journey.summary import summary

SINGLE_SHOT = "single-shot"


def _marker(path: Path) -> str | None:
    for name in ("suite.yaml", "instance.yaml"):
        if (path / name).is_file():
            return marker_protocol(path / name)
    return None


def journey_options(options: RunOptions) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split ``--agent-opt`` into (journey settings, the agent's own options)."""
    opts = options.agent_options
    mine = {k.removeprefix("journey."): v for k, v in opts.items() if k.startswith("journey.")}
    rest = {k: v for k, v in opts.items() if not k.startswith("journey.")}
    return mine, rest


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


class JourneyProtocol:
    name = "journey"

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

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        suite = bundled_suite("journey")
        return [(suite, RunOptions(agent=agent, conditions=PRESET_NAMES, judge="word-overlap"))
                for agent in ("reference", "null")]


class LoadedSuite:
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

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        path, suite, options, work_dir = self.path, self.suite, ctx.options, ctx.work_dir
        instance = next((i for i in self.instances if i.id == row.task_id), None)
        if instance is None:
            raise InputError("no such instance in the suite", file=str(path), item=row.task_id)
        settings, agent_options = journey_options(options)
        limits = SessionLimits(max_turns=int(settings.get("max_turns", suite.max_turns)),
                               max_steps_per_turn=int(settings.get("max_steps", suite.max_steps_per_turn)))
        workspace = make_workspace(instance.repo_dir, work_dir / "workspace")
        try:
            if row.condition == SINGLE_SHOT:
                session = open_session(row.agent, instance, workspace,
                                       lambda: [s.id for s in instance.subtasks], agent_options)
                record = run_single_shot(instance, session, workspace, work_dir, limits)
                simulator_kind = "none"
            else:
                simulator_kind = str(settings.get("simulator", suite.simulator))
                sim = make_simulator(simulator_kind, instance, row.condition, Path(path),
                                     seed=options.seed + row.repeat,
                                     model=str(settings.get("simulator_model", suite.simulator_model)))
                session = open_session(row.agent, instance, workspace, lambda: list(sim.state.disclosed),
                                       agent_options)
                record = run_session(instance, row.condition, sim, session, workspace, work_dir, limits)
        except HarnessError as exc:
            return classified(Reason.INFRASTRUCTURE, detail=f"harness: {exc}")
        return outcome_of(record, instance, simulator_kind, options.judge)

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return previous

    def summarize(self, outcomes: Outcomes) -> Summary:
        """Final F2P and Final P2P per persona are the headline (`summary`)."""
        return summary(summarize_rows(outcomes))


def outcome_of(record: Any, instance: Instance, simulator_kind: str, judge_spec: str = "") -> RowOutcome:
    """The scored outcome: metrics and a compact per-turn trace in `result`; the full transcript and
    every turn's diff as artifacts."""
    if record.end_reason == "provider_error":
        reason = provider_reason(str(getattr(record, "end_detail", "") or ""))
        return classified(reason, {"mode": record.mode}, "assistant provider error")
    metrics = session_metrics(record, instance)
    caps = session_capabilities(record, instance, judge_spec, final_confidence(record))
    trace = [{"turn": t.index, "disclosed": t.disclosed, "active": t.active, "stage": t.stage,
              "status": t.status, "changed_files": t.changed_files,
              "passed": sorted(n for n, ok in t.probes.items() if ok),
              "confidence": t.confidence_after, "steps": t.steps, "cost_usd": t.usage.get("cost_usd"),
              **({"workspace_rejected": t.workspace_rejected} if t.workspace_rejected else {})}
             for t in record.turns]
    result = {"mode": record.mode, "simulator": simulator_kind, "end_reason": record.end_reason,
              **metrics.to_dict(), "capabilities": caps,
              "stage_exit_turn": {str(k): v for k, v in record.stage_exit_turn.items()}, "trace": trace}
    artifacts = {"transcript.json": pretty_json(record.to_dict(with_diffs=False)).encode(),
                 "final.diff": record.final_diff.encode()}
    for t in record.turns:
        artifacts[f"turn_{t.index:03d}.diff"] = t.diff.encode()
    return classified(Reason.EVALUATED, result, "session evaluated", artifacts)


PROTOCOL = JourneyProtocol()
