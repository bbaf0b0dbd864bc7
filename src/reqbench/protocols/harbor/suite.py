"""The ``harbor`` protocol: a suite of Harbor tasks (``suite.yaml`` with ``protocol: harbor`` and
``tasks: [folder, ...]`` below ``tasks/``), each run as Harbor runs a trial.

A row is one task. Each phase (the task itself, or each ``[[steps]]`` entry in order) is one agent run
(`RowContext.step`) in one persistent workspace with the phase's ``instruction.md`` as its prompt, then the
phase's verifier (`verifier.verify`) on a fresh copy of the submission. A step below its ``min_reward``
stops the remaining steps; the task's rewards follow ``multi_step_reward_strategy`` (`rewards`). The row
scores `rewards.headline_reward`; the suite's headline is the mean reward.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.errors import InputError
from reqbench.core.execute.reasons import Reason
from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.inputfiles import read_yaml
from reqbench.protocols.base import Outcomes, RowContext, Summary
from reqbench.protocols.harbor.dockerfile import environment_block
from reqbench.protocols.harbor.taskfile import HarborTask, read_task

CONDITION = "default"
SYSTEM_PATHS = {"", "bin", "boot", "dev", "etc", "lib", "lib64", "proc", "run", "sbin", "sys", "tmp", "usr", "var",
                "opt", "sandbox", "logs", "tests", "solution"}


class StepRecord(BaseModel):
    """One phase of a row."""

    name: str = Field(description="The phase: 'task' for a single-step task, else the step's name")
    rewards: dict[str, float] | None = Field(None, description="What the verifier wrote (null: an error)")
    error: str | None = Field(None, description="Why there are no rewards (Harbor's verifier exception)")
    agent: str | None = Field(None, description="How the agent run ended when it did not complete")
    stopped: str | None = Field(None, description="The min_reward failure that stopped the remaining steps")


class HarborResult(ProtocolResult):
    """A harbor row's result."""

    reward: float = Field(description="The row's score: the 'reward' key, else the mean of the keys; 0 "
                                      "without rewards")
    rewards: dict[str, float] | None = Field(None, description="The task's rewards (multi-step: by the strategy)")
    strategy: str | None = Field(None, description="multi_step_reward_strategy of a multi-step task")
    steps: list[StepRecord] = Field(default_factory=list, description="Each phase run, in order")


@dataclass
class TaskSetup:
    task: HarborTask
    workdir: str | None
    env: dict[str, str]
    environment: dict[str, Any] | None = None
    """The task's environment block (None: the host toolchain)."""


def _suite_tasks(path: Path) -> list[Path]:
    data = read_yaml(path / "suite.yaml")
    names = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError("'tasks' must list task folders", file=str(path / "suite.yaml"), item="tasks")
    return [path / "tasks" / n for n in names]


def _setup(folder: Path, host: bool = False) -> TaskSetup:
    task = read_task(folder)
    dockerfile = folder / "environment" / "Dockerfile"
    mapping = environment_block(dockerfile.read_text(encoding="utf-8") if dockerfile.is_file() else None,
                                task.docker_image)
    workdir = task.workdir or mapping.workdir
    if workdir is not None and (not workdir.startswith("/") or workdir.strip("/").split("/")[0] in SYSTEM_PATHS
                                or ".." in workdir.split("/")):
        raise InputError("the working directory must be an absolute path outside the system folders",
                         file=str(folder / "task.toml"), item=f"workdir {workdir!r}")
    return TaskSetup(task, workdir, mapping.env, None if host else mapping.block)


class HarborProtocol:
    name = "harbor"
    result_model = HarborResult
    validation_note = "every task.toml reads as Harbor's TaskConfig fields reqbench honours"

    def detect(self, path: Path) -> bool:
        from reqbench.protocols.base import marker_protocol

        return Path(path).is_dir() and marker_protocol(Path(path) / "suite.yaml") == "harbor"

    def validate(self, path: Path) -> list[str]:
        problems = []
        try:
            folders = _suite_tasks(Path(path))
        except InputError as exc:
            return [str(exc)]
        for folder in folders:
            try:
                _setup(folder)
            except InputError as exc:
                problems.append(str(exc))
        return problems

    def load(self, path: Path) -> HarborSuite:
        host = (read_yaml(Path(path) / "suite.yaml") or {}).get("environment") == "host"
        tasks = [_setup(folder, host) for folder in _suite_tasks(Path(path))]
        return HarborSuite(self, Path(path), {folder.name: s for folder, s in zip(_suite_tasks(Path(path)), tasks,
                                                                                  strict=True)})


class HarborSuite:
    def __init__(self, protocol: HarborProtocol, path: Path, tasks: dict[str, TaskSetup]) -> None:
        self.protocol, self.path, self.tasks = protocol, path, tasks

    def plan(self, options: RunOptions) -> list[Row]:
        conditions = options.conditions or (CONDITION,)
        if set(conditions) != {CONDITION}:
            raise InputError(f"harbor suites have one condition, {CONDITION!r}", item="--condition")
        if not environments_available():
            for name, setup in self.tasks.items():
                if setup.environment is not None:
                    raise InputError("declares an environment this reqbench cannot build; import it with "
                                     "--host-toolchain to run it on the host's tools",
                                     file=str(setup.task.path / "environment"), item=f"task {name!r}")
        return [Row(name, CONDITION, options.agent, r) for r in range(options.repeats) for name in self.tasks]

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        from reqbench.protocols.harbor.trial import run_trial

        return run_trial(self.tasks[row.task_id], row, ctx)

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return self.run_row(row, ctx)

    def summarize(self, outcomes: Outcomes) -> Summary:
        from reqbench.protocols.harbor.summary import summarize

        return summarize(outcomes)


def environments_available() -> bool:
    """Whether this reqbench builds task environments (`reqbench.core.environments`)."""
    import importlib.util

    return importlib.util.find_spec("reqbench.core.environments") is not None


def step_inputs(instruction: str, workdir: str | None) -> AgentInputs:
    """The prompt of one phase: the instruction, with where the task's working directory is."""
    note = (f"\n\n(The task's working directory {workdir} is your current directory.)" if workdir else "")
    return AgentInputs(prompt=instruction + note)


def budget_of(seconds: float) -> Budget:
    return Budget(wall_seconds=seconds)


def outcome(result: HarborResult, artifacts: dict[str, bytes], detail: str) -> RowOutcome:
    reason = Reason.PASSED if result.reward >= 1.0 else Reason.CHECKS_FAILED
    return RowOutcome(RowStatus.SCORED, result=result.model_dump(mode="json", exclude_none=True),
                      detail=detail, artifacts=artifacts, reason=reason)




PROTOCOL = HarborProtocol()
