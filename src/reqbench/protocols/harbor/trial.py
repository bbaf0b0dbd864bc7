"""One row of a harbor suite, as a Harbor trial: phases in order in one workspace, each an agent run then
its verifier; ``min_reward`` stops early; the strategy combines the steps' rewards."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.errors import AgentWorkspaceError, WorkspaceLimitExceeded
from reqbench.core.execute.reasons import Reason
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.workspace import copy_tree, diff_trees
from reqbench.protocols.harbor import rewards as R
from reqbench.protocols.harbor.agentenv import agent_context
from reqbench.protocols.harbor.result import HarborResult, StepRecord
from reqbench.protocols.harbor.setup import seed_workspace
from reqbench.protocols.harbor.solution import solution_patch
from reqbench.protocols.harbor.verifier import merged_tests, verify

if TYPE_CHECKING:
    from reqbench.protocols.base import RowContext
    from reqbench.protocols.harbor.setup import TaskSetup


def run_trial(setup: TaskSetup, row: Row, ctx: RowContext) -> RowOutcome:
    task = setup.task
    base, workspace = ctx.work_dir / "base", ctx.work_dir / "workspace"
    base.mkdir()
    seed_workspace(setup, base)
    copy_tree(base, workspace)
    records: list[StepRecord] = []
    logs: dict[str, bytes] = {}
    per_step: list[R.Rewards | None] = []
    for index, phase in enumerate(task.phases):
        answers: dict[str, Any] | None = None
        if ctx.options.agent == "reference":
            patch = solution_patch(phase, workspace, setup.workdir, {**setup.env, **task.solution_env},
                                   ctx.environment.agent_mount() if ctx.environment is not None else None)
            answers = {"reference_patch": patch} if patch else {}
        with agent_context(ctx, setup.env) as step_ctx:  # the Dockerfile's ENV, as the image sets it
            step = step_ctx.step(workspace, step_inputs(phase.instruction, setup.workdir),
                                 budget_of(phase.agent_timeout), answers=answers)
        if step.invalid:
            return RowOutcome(step.status, detail=step.detail, reason=step.reason)  # type: ignore[arg-type]
        tests = merged_tests(phase, ctx.work_dir / f"tests-{index}")
        verdict = verify(phase, workspace, tests, setup.workdir, setup.env)
        logs[f"verifier-{phase.name}"] = verdict.log
        logs[f"agent-{phase.name}"] = json.dumps(step.to_dict(), default=str).encode()
        per_step.append(verdict.rewards)
        stopped = R.min_reward_failure(verdict.rewards, phase.min_reward) if task.multi_step else None
        records.append(StepRecord(name=phase.name, rewards=verdict.rewards, error=verdict.error,
                                  agent=None if step.completed else f"{step.reason}: {step.detail}"[:500],
                                  stopped=stopped))
        if stopped:
            break
    combined = R.combine_steps(task.reward_strategy, per_step) if task.multi_step else per_step[0]
    ended = R.verdict(combined, [r.error for r in records if r.error])
    result = HarborResult.model_validate({"reward": R.headline_reward(combined), "rewards": combined, "verdict": ended,
                                          "strategy": task.reward_strategy if task.multi_step else None,
                                          "steps": records})
    try:
        final = diff_trees(base, workspace).encode()
    except (WorkspaceLimitExceeded, AgentWorkspaceError) as exc:
        final = f"(no diff: {exc})".encode()
    errors = "; ".join(f"{r.name}: {r.error}" for r in records if r.error)
    return outcome(result, {"patch": final, **logs}, f"{ended}: {errors}" if combined is None else errors)


def step_inputs(instruction: str, workdir: str | None) -> AgentInputs:
    """The prompt of one phase: the instruction, with where the task's working directory is."""
    note = (f"\n\n(The task's working directory {workdir} is your current directory.)" if workdir else "")
    return AgentInputs(prompt=instruction + note)


def budget_of(seconds: float) -> Budget:
    return Budget(wall_seconds=seconds)


def outcome(result: HarborResult, artifacts: dict[str, bytes], detail: str) -> RowOutcome:
    reason = Reason.PASSED if result.reward >= 1.0 else Reason.CHECKS_FAILED
    stored = HarborResult.model_validate(result.model_dump(exclude_none=True))  # unset: the fields it lacks
    return RowOutcome(RowStatus.SCORED, result=stored,
                      detail=detail, artifacts=artifacts, reason=reason)
