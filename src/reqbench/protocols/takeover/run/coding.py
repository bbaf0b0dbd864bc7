"""The coding stage and the three hidden gates for one delivery row.

`deliver` runs the agent in a fresh workspace materialised from the target's initial repository,
freezes its submission (the workspace diff), then `evaluate` applies the frozen submission to another
fresh copy and runs build → target → regression from the hidden directory. `evaluate` is also what
`--resume` re-runs on a pending row: the agent is never asked again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core import idle, tempdirs
from reqbench.core.agents.base import AgentResult
from reqbench.core.checks import Check, CheckResult, CheckStatus, run_check_settled
from reqbench.core.errors import ReqbenchError
from reqbench.core.execute.agent_step import AgentStep
from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.suite import RowContext
from reqbench.core.workspace import AgentFailure, Submission, apply_patch, materialize, safe_submission
from reqbench.protocols.takeover.delivery.gates import (
    GATES,
    RECHECK_LIMIT,
    DeliveryOutcome,
    agent_failure,
    decide,
    gates_to_run,
    read_gate,
)
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.stages import CODING_BUDGET, StageInputs, run_agent


@dataclass
class CodingResult:
    agent: AgentResult | None
    submission: Submission | None
    outcome: DeliveryOutcome
    checks: dict[str, dict[str, Any]]
    step: AgentStep | None = None
    """The coding step when it did not complete (its reason decides the row, `core.execute.verdict`)."""


def gate_checks(ctx: SuiteContext, target_id: str, timeout: float | None = None) -> dict[str, Check]:
    """The target's build/target/regression checks (core binds ``{python}`` and ``{pytest}``); `timeout`
    replaces every gate's budget (`RunOptions.check_timeout`, a timeout re-run)."""
    spec = ctx.suite.checks_for(ctx.delivery(target_id))
    return {name: Check(name=name, command=getattr(spec, name).command,
                        timeout_seconds=timeout or getattr(spec, name).timeout_seconds,
                        protected=getattr(spec, name).protected) for name in GATES}


def run_gates(ctx: SuiteContext, target_id: str, workspace: Path, base: Path | None = None,
              timeout: float | None = None) -> tuple[dict[str, str], dict[str, Any]]:
    """Build first; target and regression only after a build PASS (C.2). Returns the gates' C.2
    statuses (`gates.read_gate`) + details (each gate's check result, ``submission_ran`` where its
    HARNESS_ERROR could be the submission's, and the skipped tests it reported). A gate whose process
    exits with an unexpected code is re-checked at once (`core.checks.run_check_settled`).

    Protected paths (conftest.py, ini files, ...) of `workspace` are restored from `base` (default: the
    target's initial repository) before each gate; a gate's details list those the submission touched.
    """
    checks = gate_checks(ctx, target_id, timeout)
    hidden = ctx.hidden_dir(target_id)
    base = base if base is not None else ctx.initial_repository(target_id)
    results: dict[str, CheckResult] = {"build": run_check_settled(checks["build"], workspace, hidden, base=base)}
    readings = {"build": read_gate(results["build"], checks["build"].runs_pytest)}
    after = gates_to_run(readings["build"].status)
    # independent of each other (each checks its own snapshot of the tree): side by side
    done = idle.side_by_side([functools.partial(run_check_settled, checks[name], workspace, hidden, base=base)
                              for name in after])
    results.update(zip(after, done, strict=True))
    readings.update({g: read_gate(results[g], checks[g].runs_pytest) for g in after})
    statuses = {g: readings[g].status if g in readings else CheckStatus.SKIPPED.value for g in GATES}
    details = {g: {**r.to_dict(), "gate_status": readings[g].status,
                   "submission_ran": readings[g].submission_ran} for g, r in results.items()}
    return statuses, details


def evaluate(ctx: SuiteContext, target_id: str, submission: Submission, scratch: Path,
             timeout: float | None = None, rechecks: int = 0) -> CodingResult:
    """Apply a frozen submission to a fresh initial repository and run the gates. `rechecks`: how many
    times this frozen submission was evaluated before (`gates.RECHECK_LIMIT` bounds how long a
    HARNESS_ERROR its own code could cause keeps the row pending)."""
    initial = ctx.initial_repository(target_id)
    ws = materialize(initial, scratch / "eval")
    try:
        apply_patch(ws.path, submission.patch)
    except ReqbenchError as exc:
        return CodingResult(None, submission, agent_failure(f"submission does not apply: {exc}",
                                                             Reason.PATCH_APPLY), {})
    statuses, details = run_gates(ctx, target_id, ws.path, initial, timeout)
    settled = frozenset(g for g, d in details.items() if d["submission_ran"]) if rechecks >= RECHECK_LIMIT \
        else frozenset()
    outcome = decide(statuses, settled)
    outcome.skipped_tests = {g: d["skipped_tests"] for g, d in details.items() if d.get("skipped_tests")}
    return CodingResult(None, submission, outcome, details)


def deliver(ctx: SuiteContext, rctx: RowContext, target_id: str, stage: StageInputs) -> CodingResult:
    """Coding stage + evaluation. No completed run or an empty diff is an agent failure (Table 12)."""
    work_dir = rctx.work_dir
    ws = materialize(ctx.initial_repository(target_id), work_dir / "workspace")
    stage.context.setdefault("reference_patch", (ctx.suite_dir / ctx.delivery(target_id).reference_patch)
                             .read_text(encoding="utf-8"))
    step = run_agent(rctx, "coding", ws.path, work_dir / "inputs-coding", stage, CODING_BUDGET, [ctx.suite_dir])
    if step.reason is not None:
        failed = CodingResult(step.result, None, agent_failure(f"agent {step.reason.value}: {step.detail}",
                                                               step.reason), {})
        failed.step = step
        return failed
    result = step.result
    submission = safe_submission(ws)
    if isinstance(submission, AgentFailure):
        return CodingResult(result, None, agent_failure(submission.reason, Reason.WORKSPACE_OVER_LIMIT), {})
    if not submission.patch.strip():
        return CodingResult(result, submission, agent_failure("no deliverable: the project is unchanged",
                                                              Reason.EMPTY_SUBMISSION), {})
    with tempdirs.folder("eval", work_dir) as scratch:
        evaluated = evaluate(ctx, target_id, submission, Path(scratch))
    evaluated.agent = result
    return evaluated
