"""One takeover row, per condition (ReqMemBench §3.1, §4.1–4.3, appendix C.2, D.2).

Delivery conditions (hidden three-gate checks decide; fixed denominator = delivery targets):

* ``C1`` / ``C2`` — direct delivery: request + full / relevant history + initial project; no ACT gate.
* ``oracle-post`` — the restricted projection of the gold post-state + initial project.
* ``oracle-pre`` — Phase A on the gold pre-state (neutral refs, empty history); only a valid ACT enters
  coding, with the restricted projection of the *frozen predicted* post-state; CLARIFY or an invalid
  response scores 0 and never reaches coding.
* ``two-phase-C1`` / ``two-phase-C2`` — Phase A on the condition's package, frozen first; a valid ACT
  enters coding with request + history + the frozen response; the Phase-A response is also scored.

Diagnostic conditions (RQ1–RQ3 scoring of the Phase-A response, every target):
``diag-C1`` / ``diag-C2``.

Every outcome carries a `core.execute.outcomes.Reason`: a provider error in either stage is *invalid*
(re-run at the same budget), a gate that reports HARNESS_ERROR (C.2: an exit code other than 0/1, a
start-up error, a timeout) or a judge that is down is *pending* (re-evaluated on the frozen submission or
response). A HARNESS_ERROR the submission's own code could cause is re-checked at most
`delivery.gates.RECHECK_LIMIT` times; reproduced, it is the submission's scored failure (a timeout then
reads ``verifier_timeout``), like every other agent-caused outcome.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.judges.factory import make_judge
from reqbench.core.workspace import Submission
from reqbench.protocols.takeover.delivery.gates import Decision, agent_failure
from reqbench.protocols.takeover.phase_a.prompts import (
    DIRECT_DELIVERY,
    ORACLE_CODING,
    ORACLE_PRE_STATE,
    TWO_PHASE_CODING,
)
from reqbench.protocols.takeover.run import oracle
from reqbench.protocols.takeover.run.coding import CodingResult, deliver, evaluate
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.options import split_options
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.run.stages import PhaseAResult, StageInputs, json_file, run_phase_a
from reqbench.protocols.takeover.scoring.target import gold_response, score_target

DELIVERY_CONDITIONS = ("C1", "C2", "oracle-pre", "oracle-post", "two-phase-C1", "two-phase-C2")
DIAGNOSTIC_CONDITIONS = ("diag-C1", "diag-C2")
DEFAULT_JUDGE = "exact"
"""The judge when ``--judge`` is not given: each contract's deterministic rule (`judging.exact_rules`)."""
CONDITIONS = DELIVERY_CONDITIONS + DIAGNOSTIC_CONDITIONS
JUDGED_CONDITIONS = DIAGNOSTIC_CONDITIONS + ("two-phase-C1", "two-phase-C2")
"""Conditions whose Phase-A response is scored by the judge (RQ1-RQ3)."""


def history_condition(condition: str) -> str:
    """C1 or C2 for conditions that show a history."""
    return condition.rsplit("-", 1)[-1]


def _package_stage(ctx: SuiteContext, target_id: str, condition: str, options: RunOptions) -> StageInputs:
    """Phase A on a C1/C2 public package (task, history, instructions, schema); the instructions and schema
    are the run's Phase-A texts (`run.options`: reqbench's paraphrase, or the released texts given with
    ``--agent-opt takeover.phase_a_texts=DIR``), in package form and shown verbatim."""
    texts = split_options(options)[0].texts
    files = ctx.public_files(target_id, condition)
    files.pop("instructions.md", None)
    files["response.schema.json"] = texts.schema_file
    gold = gold_response(ctx.instances(target_id), condition)
    return StageInputs(files, texts.instructions_file, {"reference_reply": json.dumps(gold, ensure_ascii=False)},
                       verbatim=True)


def _phase_a(ctx: SuiteContext, rctx: RowContext, row: Row) -> PhaseAResult:
    target_id = row.task_id
    work_dir = rctx.work_dir
    if row.condition == "oracle-pre":
        inst = ctx.instances(target_id)
        files = {"task.json": ctx.public_files(target_id, "C1")["task.json"],
                 "state.json": json_file(oracle.oracle_pre_state(inst)),
                 "response.schema.json": split_options(rctx.options)[0].texts.schema_file}
        reply = json.dumps(oracle.oracle_pre_gold_response(inst), ensure_ascii=False)
        stage = StageInputs(files, ORACLE_PRE_STATE, {"reference_reply": reply})
        visible: list[Any] = []
    else:
        cond = history_condition(row.condition)
        stage = _package_stage(ctx, target_id, cond, rctx.options)
        visible = ctx.instances(target_id).visible_message_ids(cond)
    # No repository in Phase A: the workspace holds just the package files (task, history, schema,
    # instructions), as the Phase-A instructions say.
    workspace = work_dir / "phase-a"
    workspace.mkdir(parents=True, exist_ok=True)
    return run_phase_a(rctx, workspace, workspace, stage, visible, [ctx.suite_dir])


def _coding_stage(ctx: SuiteContext, row: Row, phase_a: PhaseAResult | None) -> StageInputs:
    target_id = row.task_id
    if row.condition in ("C1", "C2"):
        files = ctx.public_files(target_id, row.condition)
        return StageInputs({k: files[k] for k in ("task.json", "history.jsonl")}, DIRECT_DELIVERY)
    if row.condition == "oracle-post":
        projection = oracle.gold_projection(ctx.instances(target_id)) or []
        return StageInputs({"state.json": json_file(projection)}, ORACLE_CODING)
    assert phase_a is not None and phase_a.response is not None
    if row.condition == "oracle-pre":
        return StageInputs({"state.json": json_file(oracle.response_projection(phase_a.response))},
                           ORACLE_CODING)
    files = ctx.public_files(target_id, history_condition(row.condition))
    return StageInputs({"task.json": files["task.json"], "history.jsonl": files["history.jsonl"],
                        "response.json": json_file(phase_a.response)}, TWO_PHASE_CODING)


def _outcome(result: dict[str, Any], reason: Reason, artifacts: dict[str, bytes]) -> RowOutcome:
    """The row's outcome, its result built as the protocol's model (`TakeoverResult`)."""
    pending = reason in (Reason.CHECK_INFRASTRUCTURE, Reason.JUDGE_UNAVAILABLE)
    return classified(reason, TakeoverResult.model_validate(result),
                      "pending re-evaluation" if pending else reason.value, artifacts)


def _harness_failure(phase_a: PhaseAResult | None, coding: CodingResult | None) -> Reason | None:
    """An agent step the harness, not the agent, failed (a provider failure the gateway or client recorded,
    a launcher failure): the row is invalid with that step's reason (`core.execute.verdict`)."""
    for step in (phase_a.step if phase_a else None, coding.step if coding else None):
        if step is not None and step.invalid:
            return step.reason
    return None


def delivery_reason(result: dict[str, Any], coding: CodingResult) -> Reason:
    """The reason of a delivery row. A gate's timeout is a HARNESS_ERROR (pending) until it reproduced
    after the bounded re-checks (`delivery.gates.decide`); a failed gate that timed out then gives
    ``verifier_timeout``; an agent failure carries its own cause (the step's reason, CLARIFY, an invalid
    Phase-A response, a submission that does not apply)."""
    outcome = coding.outcome
    if outcome.decision is Decision.PASS:
        return Reason.PASSED
    if outcome.decision is Decision.FAIL:
        timed_out = any(d.get("timed_out") and d.get("gate_status", d.get("status")) in ("FAIL", "HARNESS_ERROR")
                        for d in coding.checks.values())
        return Reason.VERIFIER_TIMEOUT if timed_out else Reason.CHECKS_FAILED
    if outcome.decision is Decision.PENDING:
        return Reason.CHECK_INFRASTRUCTURE
    return outcome.cause or Reason.EMPTY_SUBMISSION


def _delivery_result(row: Row, coding: CodingResult, phase_a: PhaseAResult | None,
                     score: dict[str, Any] | None) -> RowOutcome:
    result: dict[str, Any] = {
        "kind": "delivery", "target_id": row.task_id, "condition": row.condition,
        "delivery": coding.outcome.to_dict(), "checks": coding.checks,
        "phase_a": phase_a.to_dict() if phase_a else None, "score": score,
        # two-phase: the frozen Phase-A answer that drove this delivery, re-scored into the RQ tables
        "response": phase_a.response if phase_a is not None and score is not None else None,
        "agent": ({"status": coding.agent.status.value, "wall_seconds": coding.agent.wall_seconds,
                   "usage": coding.agent.usage.to_dict()} if coding.agent else None),
        "submission": ({"sha256": coding.submission.sha256, "patch": coding.submission.patch}
                       if coding.submission else None),
    }
    artifacts: dict[str, bytes] = {}
    if coding.submission:
        artifacts["submission.patch"] = coding.submission.patch.encode()
    if coding.agent:
        artifacts["trajectory.json"] = json.dumps(coding.agent.to_dict(), ensure_ascii=False).encode()
    if phase_a and phase_a.response:
        artifacts["phase_a_response.json"] = json.dumps(phase_a.response, ensure_ascii=False).encode()
    reason = _harness_failure(phase_a, coding) or delivery_reason(result, coding)
    return _outcome(result, reason, artifacts)


def _score(ctx: SuiteContext, options: RunOptions, target_id: str, condition: str,
           response: dict[str, Any] | None) -> dict[str, Any]:
    """The target's RQ1-RQ3 scores plus the judge call records (kept so reports can re-derive every
    aggregate offline from the recorded labels)."""
    score = score_target(ctx.instances(target_id), response, condition,
                         make_judge(options.judge or DEFAULT_JUDGE))
    return {**score.as_json(), "judge_records": score.judge_records}


def _diagnostic_row(ctx: SuiteContext, row: Row, rctx: RowContext) -> RowOutcome:
    """diag-C1 / diag-C2: Phase A only; the frozen response is scored on RQ1-RQ3."""
    options = rctx.options
    phase_a = _phase_a(ctx, rctx, row)
    score = _score(ctx, options, row.task_id, history_condition(row.condition), phase_a.response)
    result = {"kind": "diagnostic", "target_id": row.task_id, "condition": row.condition,
              "phase_a": phase_a.to_dict(), "response": phase_a.response, "score": score}
    art = {"phase_a_trajectory.json": json.dumps(phase_a.agent.to_dict()).encode()}
    return _outcome(result, _harness_failure(phase_a, None) or _diagnostic_reason(score, phase_a.step.reason), art)


def _diagnostic_reason(score: dict[str, Any], step_reason: Reason | None = None) -> Reason:
    """A judge that is down leaves the row pending; an agent step that failed (timeout, exit, a prompt over
    the model's context) is the row's scored reason (its RQ scores are the agent-failure zeros, C.2);
    otherwise the answer was evaluated."""
    if score["status"] == "pending":
        return Reason.JUDGE_UNAVAILABLE
    return step_reason or Reason.EVALUATED


def run_row(ctx: SuiteContext, row: Row, rctx: RowContext) -> RowOutcome:
    options = rctx.options
    if row.condition in DIAGNOSTIC_CONDITIONS:
        return _diagnostic_row(ctx, row, rctx)
    phase_a: PhaseAResult | None = None
    score: dict[str, Any] | None = None
    if row.condition in ("oracle-pre", "two-phase-C1", "two-phase-C2"):
        phase_a = _phase_a(ctx, rctx, row)
        if row.condition != "oracle-pre":
            score = _score(ctx, options, row.task_id, history_condition(row.condition), phase_a.response)
        if phase_a.decision != "ACT":  # CLARIFY or invalid: never reaches coding (D.2)
            clarify = phase_a.decision == "CLARIFY"
            cause = (Reason.CLARIFY if clarify else phase_a.step.reason or Reason.INVALID_RESPONSE)
            why = "CLARIFY" if clarify else "invalid Phase-A response"
            coding = CodingResult(None, None, agent_failure(f"{why}: no coding stage", cause), {})
            return _delivery_result(row, coding, phase_a, score)
    coding = deliver(ctx, rctx, row.task_id, _coding_stage(ctx, row, phase_a))
    return _delivery_result(row, coding, phase_a, score)


def reevaluate(ctx: SuiteContext, row: Row, previous: RowOutcome, options: RunOptions,
               work_dir: Path) -> RowOutcome:
    """Re-run only the evaluation of a pending row: gates on the frozen submission, or the judge on the
    frozen Phase-A response. The agent is never run again."""
    stored = TakeoverResult.of(previous.result)
    kept = stored.stored()  # the fields it set; the new ones replace theirs in a new model (`_outcome`)
    if stored.kind == "diagnostic":
        score = _score(ctx, options, row.task_id, history_condition(row.condition), stored.response)
        step = (stored.phase_a or {}).get("step_reason")
        return _outcome({**kept, "score": score}, _diagnostic_reason(score, Reason(step) if step else None), {})
    submission = stored.submission
    decided = stored.delivery is not None and stored.delivery.decision == Decision.AGENT_FAILURE.value
    rechecked = options.recheck or previous.status is not RowStatus.SCORED
    if submission is None or decided or not rechecked or previous.status is RowStatus.INVALID:
        return previous  # nothing was evaluated: re-evaluating cannot change the outcome
    rechecks = (stored.gate_rechecks or 0) + 1  # bounded: `delivery.gates.RECHECK_LIMIT`
    coding = evaluate(ctx, row.task_id, Submission.from_patch(submission.patch), work_dir, options.check_timeout,
                      rechecks)
    result = {**kept, "delivery": coding.outcome.to_dict(), "checks": coding.checks, "gate_rechecks": rechecks}
    return _outcome(result, delivery_reason(result, coding), {})
