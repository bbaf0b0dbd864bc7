"""RQ4 scoring: build/regression components, the agent judge's result, the finalizer and run aggregation
(paper 3.1 and appendix C.2; FORMAT.md (g.2)).

* **Components** (C.2 exit-code rule): return code 0 is PASS, 1 is FAIL; any other code, a timeout or
  a start-up error is HARNESS_ERROR. The commands of a delivery run in the sandbox, with the scripts
  they name restored from the code environment (`rq4_delivery.checks`, which also scores one target).
* **Judge result** (``rq4-agent-judge-result-v1``): one verdict PASS / FAIL / UNSURE per criterion,
  each with at least one evidence item; the criteria must be exactly the target's criterion ids and
  every named artifact must be an existing file inside the judge workspace.
* **Finalizer** (``rq4-evaluation-result-v1``; never trusts an overall verdict from the judge), in order:
  1. build or regression HARNESS_ERROR -> JUDGE_ERROR, result null (BUILD_OR_REGRESSION_HARNESS_ERROR);
  2. build or regression FAIL -> SCORED FAIL (BUILD_OR_REGRESSION_FAIL);
  3. no (valid) judge result -> JUDGE_ERROR, null (MISSING_AGENT_JUDGE_RESULT);
  4. any UNSURE -> REVIEW_REQUIRED, null (JUDGE_UNSURE);
  5. any FAIL -> SCORED FAIL (ACCEPTANCE_CRITERION_FAIL);
  6. all PASS -> SCORED PASS (ALL_GATES_PASS).
* **Run aggregation** (``rq4-aggregate-v1``): an evaluation result decides; else a closed Phase-B gate
  because the agent did not choose ACT is SCORED FAIL (NO_CODE_SUBMISSION); else a failed Phase-B agent
  is SCORED FAIL (PHASE_B_AGENT_FAILURE); else PENDING (INCOMPLETE_PIPELINE). Success rate is
  PASS / SCORED; C1 and C2 are compared per (target, configuration, repetition).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RESULT_SCHEMA_VERSION = "rq4-agent-judge-result-v1"
EVALUATION_SCHEMA_VERSION = "rq4-evaluation-result-v1"
AGGREGATE_SCHEMA_VERSION = "rq4-aggregate-v1"
FINALIZER_VERSION = "rq4-agent-judge-finalizer-v1"
COMPONENTS = ("build", "regression")
STATUSES = ("SCORED", "REVIEW_REQUIRED", "JUDGE_ERROR", "PENDING")


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")
    operation: str = Field(min_length=1, description="What the judge did (a command, a file read, ...).")
    observation: str = Field(min_length=1, description="What it observed.")
    artifact: str | None = Field(default=None, description="A file inside the judge workspace, or null.")


class CriterionVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    criterion_id: str = Field(pattern=r"^AC[0-9]{3}$")
    verdict: Literal["PASS", "FAIL", "UNSURE"]
    evidence: list[Evidence] = Field(min_length=1)


class JudgeResult(BaseModel):
    """The agent judge's answer for one target (``rq4-agent-judge-result-v1``)."""

    model_config = ConfigDict(extra="forbid", title="reqbench RQ4 acceptance-judge result")
    schema_version: Literal["rq4-agent-judge-result-v1"]
    target_id: str = Field(min_length=1)
    criteria: list[CriterionVerdict] = Field(min_length=1)
    judge_summary: str = Field(min_length=1)


def judge_result_schema() -> dict[str, Any]:
    """JSON Schema of `JudgeResult` (shipped to the judge as its response schema)."""
    return JudgeResult.model_json_schema()


def judge_result_problems(
    data: Any, target_id: str, criterion_ids: Sequence[str], workspace: Path | None = None
) -> list[str]:
    """Every reason to reject a judge result; [] when it is valid for this target."""
    try:
        result = JudgeResult.model_validate(data)
    except ValidationError as exc:
        return [f"judge result does not follow {RESULT_SCHEMA_VERSION}: {e['loc']}: {e['msg']}"
                for e in exc.errors()]
    problems = []
    if result.target_id != target_id:
        problems.append(f"judge result is for {result.target_id}, not {target_id}")
    got = [c.criterion_id for c in result.criteria]
    if len(set(got)) != len(got):
        problems.append("judge result repeats a criterion")
    if set(got) != set(criterion_ids):
        problems.append(f"judge result covers {sorted(set(got))}, expected exactly {sorted(criterion_ids)}")
    if workspace is not None:
        root = workspace.resolve()
        for c in result.criteria:
            for ev in c.evidence:
                if ev.artifact is None:
                    continue
                p = (root / ev.artifact).resolve()
                if not p.is_relative_to(root) or not p.is_file():
                    problems.append(f"{c.criterion_id}: evidence artifact {ev.artifact!r} is not a file in the "
                                    "judge workspace")
    return problems


def finalize(
    components: dict[str, str], judge_result: dict[str, Any] | None, **identity: Any
) -> dict[str, Any]:
    """The ``rq4-evaluation-result-v1`` record from component statuses and a *validated* judge result.

    `identity` supplies run_id, project_id, target_id, condition, agent_config_id, repetition and
    judge_config_id (missing ones are null).
    """
    statuses = [components.get(c, "HARNESS_ERROR") for c in COMPONENTS]
    verdicts = [c["verdict"] for c in (judge_result or {}).get("criteria", [])]
    if "HARNESS_ERROR" in statuses:
        status, result, reason = "JUDGE_ERROR", None, "BUILD_OR_REGRESSION_HARNESS_ERROR"
    elif "FAIL" in statuses:
        status, result, reason = "SCORED", "FAIL", "BUILD_OR_REGRESSION_FAIL"
    elif judge_result is None:
        status, result, reason = "JUDGE_ERROR", None, "MISSING_AGENT_JUDGE_RESULT"
    elif "UNSURE" in verdicts:
        status, result, reason = "REVIEW_REQUIRED", None, "JUDGE_UNSURE"
    elif "FAIL" in verdicts:
        status, result, reason = "SCORED", "FAIL", "ACCEPTANCE_CRITERION_FAIL"
    else:
        status, result, reason = "SCORED", "PASS", "ALL_GATES_PASS"
    keys = ("run_id", "project_id", "target_id", "condition", "agent_config_id", "repetition", "judge_config_id")
    return {
        "schema_version": EVALUATION_SCHEMA_VERSION,
        "finalizer_version": FINALIZER_VERSION,
        **{k: identity.get(k) for k in keys},
        "components": {c: components.get(c, "HARNESS_ERROR") for c in COMPONENTS},
        "judge_result": judge_result,
        "score_status": status,
        "result": result,
        "decision_reason": reason,
    }


def run_outcome(
    evaluation: dict[str, Any] | None,
    *,
    phase_a_decision: str | None = None,
    phase_b_agent_failed: bool = False,
) -> dict[str, Any]:
    """One run's RQ4 outcome ``{score_status, result, reason}`` under the ``rq4-aggregate-v1`` rules.

    `phase_a_decision` is the frozen Phase-A decision (ACT opens the Phase-B gate; anything else,
    including an invalid response, closes it with AGENT_DECISION_NOT_ACT).
    """
    if evaluation is not None:
        return {"score_status": evaluation["score_status"], "result": evaluation["result"],
                "reason": evaluation["decision_reason"]}
    if phase_a_decision != "ACT":
        return {"score_status": "SCORED", "result": "FAIL", "reason": "NO_CODE_SUBMISSION"}
    if phase_b_agent_failed:
        return {"score_status": "SCORED", "result": "FAIL", "reason": "PHASE_B_AGENT_FAILURE"}
    return {"score_status": "PENDING", "result": None, "reason": "INCOMPLETE_PIPELINE"}


def aggregate(outcomes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts per status and ``success_rate`` = PASS / SCORED (None when nothing is scored yet)."""
    counts = {s: sum(o["score_status"] == s for o in outcomes) for s in STATUSES}
    passed = sum(o["score_status"] == "SCORED" and o["result"] == "PASS" for o in outcomes)
    scored = counts["SCORED"]
    return {
        "schema_version": AGGREGATE_SCHEMA_VERSION,
        "n": len(outcomes),
        **{s.lower(): counts[s] for s in STATUSES},
        "pass": passed,
        "success_rate": passed / scored if scored else None,
        "final": scored == len(outcomes),
    }


def paired_conditions(by_condition: dict[str, dict[Any, dict[str, Any]]]) -> dict[str, int]:
    """C1 vs C2 on the same keys (target, configuration, repetition), both SCORED: how many pairs
    pass in both, only C1, only C2, neither."""
    c1, c2 = by_condition.get("C1", {}), by_condition.get("C2", {})
    out = {"pairs": 0, "both_pass": 0, "c1_only": 0, "c2_only": 0, "neither": 0}
    for key in sorted(set(c1) & set(c2), key=str):
        a, b = c1[key], c2[key]
        if a["score_status"] != "SCORED" or b["score_status"] != "SCORED":
            continue
        pa, pb = a["result"] == "PASS", b["result"] == "PASS"
        out["pairs"] += 1
        out["both_pass" if pa and pb else "c1_only" if pa else "c2_only" if pb else "neither"] += 1
    return out


def load_rq4_instance(path: Path) -> dict[str, Any]:
    """Read an RQ4 instance file (``rq_id`` RQ4 with a registry record as construction gold)."""
    from reqbench.core.errors import InputError
    from reqbench.core.hashing import read_json

    if not path.is_file():
        raise InputError("RQ4 instance file does not exist", file=str(path))
    data = read_json(path)
    if not isinstance(data, dict) or data.get("rq_id") != "RQ4" or "registry_target" not in (
        data.get("construction_gold") or {}
    ):
        raise InputError("not an RQ4 instance (rq_id RQ4 with construction_gold.registry_target)", file=str(path))
    return data


def _phase_a_decision(response_file: Path) -> str | None:
    """The decision of a frozen response file (None when missing or not a JSON object)."""
    import json

    if not response_file.is_file():
        return None
    try:
        data = json.loads(response_file.read_text(encoding="utf-8-sig"))
    except ValueError:
        return None
    return data.get("decision") if isinstance(data, dict) else None


def score_run_rq4(run_dir: Path, instances_dir: Path) -> dict[str, Any] | None:
    """RQ4 over a scored run folder, or None when the run has no RQ4 (no ``*_RQ4.json`` instance).

    Per ``responses/<configuration>/<C>/`` folder, every target eligible under C is planned; its outcome
    comes from ``rq4/<configuration>/<C>/<target>.json`` (an ``rq4-evaluation-result-v1`` record, or
    ``{"phase_b_agent_failed": true}``), else from the frozen Phase-A decision (`run_outcome`).
    Returns ``{"by_condition": {configuration: {C: aggregate}}, "paired": {configuration: counts}}``.
    """
    from reqbench.core.hashing import read_json

    instances = {}
    for path in sorted(instances_dir.rglob("*_RQ4.json")):
        inst = load_rq4_instance(path)
        instances[inst["target_id"]] = inst
    if not instances:
        return None
    by_condition: dict[str, dict[str, Any]] = {}
    paired: dict[str, dict[str, int]] = {}
    responses = run_dir / "responses"
    for config in sorted(p for p in responses.iterdir() if p.is_dir()) if responses.is_dir() else []:
        outcomes: dict[str, dict[Any, dict[str, Any]]] = {}
        for cond in ("C1", "C2"):
            if not (config / cond).is_dir():
                continue
            rows = outcomes.setdefault(cond, {})
            for tid, inst in instances.items():
                elig = inst["construction_gold"]["registry_target"]["condition_eligibility"][cond]
                if not elig["rq4_eligible"]:
                    continue
                result_file = run_dir / "rq4" / config.name / cond / f"{tid}.json"
                recorded = read_json(result_file) if result_file.is_file() else None
                evaluation = recorded if isinstance(recorded, dict) and "score_status" in recorded else None
                failed = bool(isinstance(recorded, dict) and recorded.get("phase_b_agent_failed"))
                rows[tid] = run_outcome(evaluation, phase_a_decision=_phase_a_decision(config / cond / f"{tid}.json"),
                                        phase_b_agent_failed=failed)
            by_condition.setdefault(config.name, {})[cond] = aggregate(list(rows.values()))
        paired[config.name] = paired_conditions(outcomes)
    return {"schema_version": AGGREGATE_SCHEMA_VERSION, "by_condition": by_condition, "paired": paired}
