"""The ``harbor`` protocol: a suite of Harbor tasks (``suite.yaml`` with ``protocol: harbor`` and
``tasks: [folder, ...]`` below ``tasks/``), each run as Harbor runs a trial (`trial`).

A row is one task. Each phase (the task itself, or each ``[[steps]]`` entry in order) is one agent run
(`RowContext.step`) in one persistent workspace with the phase's ``instruction.md`` as its prompt, then the
phase's verifier (`verifier.verify`) on a fresh copy of the submission. A task's environment
(`environments`, from its ``environment.yaml``) is built before any row; the agent's steps and
``solve.sh`` run in the row's overlay of it, the verifier in the pristine one. A step below its ``min_reward``
stops the remaining steps; the task's rewards follow ``multi_step_reward_strategy`` (`rewards`). The row
scores `rewards.headline_reward`; the suite's headline is the mean reward.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.inputfiles import read_yaml
from reqbench.protocols.base import Outcomes, RowContext, Suite, SuiteProtocol, Summary
from reqbench.protocols.harbor.result import HarborResult
from reqbench.protocols.harbor.setup import TaskSetup, suite_tasks, task_setup

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy

CONDITION = "default"


class HarborProtocol(SuiteProtocol):
    name = "harbor"
    result_model = HarborResult
    validation_note = "every task.toml reads as the Harbor fields reqbench honours"

    def detect(self, path: Path) -> bool:
        from reqbench.protocols.base import marker_protocol

        return Path(path).is_dir() and marker_protocol(Path(path) / "suite.yaml") == "harbor"

    def validate(self, path: Path) -> list[str]:
        try:
            folders = suite_tasks(Path(path))
        except InputError as exc:
            return [str(exc)]
        problems = []
        for folder in folders:
            try:
                task_setup(folder)
            except InputError as exc:
                problems.append(str(exc))
        return problems

    def load(self, path: Path) -> HarborSuite:
        path = Path(path)
        host = (read_yaml(path / "suite.yaml") or {}).get("environment") == "host"
        return HarborSuite(self, path, {folder.name: task_setup(folder, host) for folder in suite_tasks(path)})

    def study(self) -> ProtocolStudy:
        """Its paired value and paper-shaped study tables (`protocols.harbor.study`)."""
        from reqbench.protocols.harbor.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        return []


class HarborSuite(Suite):
    """A loaded harbor suite: its tasks by folder name."""

    def __init__(self, protocol: HarborProtocol, path: Path, tasks: dict[str, TaskSetup]) -> None:
        self.protocol, self.path, self.tasks = protocol, path, tasks

    def plan(self, options: RunOptions) -> list[Row]:
        conditions = options.conditions or (CONDITION,)
        if set(conditions) != {CONDITION}:
            raise InputError(f"harbor suites have one condition, {CONDITION!r}", item="--condition")
        return [Row(name, CONDITION, options.agent, r) for r in range(options.repeats) for name in self.tasks]

    def environments(self) -> dict[str, Any]:
        """The environment each task declares (its ``environment.yaml``, else its Dockerfile's mapping;
        DESIGN §14): built once before any row; every agent step, ``solve.sh`` and verifier of the task
        runs in it."""
        from reqbench.core.execute.environments import declared_environments

        return declared_environments((name, setup.environment, setup.environment_origin, setup.task.path)
                                     for name, setup in self.tasks.items())

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        from reqbench.protocols.harbor.trial import run_trial

        return run_trial(self.tasks[row.task_id], row, ctx)

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        """Rows are never left pending (a verifier error scores 0, as in Harbor) and each phase is verified
        on the workspace as that phase left it, which is not stored: the outcome stands (the agent is never
        run again)."""
        return previous

    def summarize(self, outcomes: Outcomes) -> Summary:
        from reqbench.protocols.harbor.summary import summarize

        return summarize(outcomes)


PROTOCOL = HarborProtocol()
