"""`TakeoverResult`: the typed row result of a takeover row (delivery or diagnostic; ReqMemBench §3.1, C.2).
``reqbench schema takeover-row-result`` prints it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.execute.results import ProtocolResult, as_number


class DeliveryDecision(BaseModel):
    """The three-gate decision of a delivery row (ReqMemBench C.2, Table 12)."""

    model_config = ConfigDict(extra="forbid")

    decision: str | None = Field(default=None, description="pass, fail, agent_failure or pending.")
    score: int | None = Field(default=None, description="1 for pass, 0 for fail / agent failure, null while pending.")
    statuses: dict[str, str] = Field(default_factory=dict, description="Gate (build, target, regression) -> "
                                     "PASS, FAIL, HARNESS_ERROR or NOT_RUN.")
    primary_failure: str | None = Field(default=None, description="The first gate that did not pass.")
    reason: str | None = Field(default=None, description="Why, in words.")
    cause: str | None = Field(default=None, description="The row's reason code when the agent delivered nothing.")
    # free-form: gate -> the tests its runner reported skipped, as that runner names them
    skipped_tests: dict[str, Any] | None = Field(default=None, description="Gate -> tests the runner reported skipped.")


class PhaseAScore(BaseModel):
    """RQ1-RQ3 of a frozen Phase-A response, with the judge calls that produced them (C.1)."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = Field(default=None, description="scored, pending or not_scored.")
    target_id: str | None = Field(default=None, description="The target scored.")
    condition: str | None = Field(default=None, description="The history condition scored against (C1, C2).")
    response_sha256: str | None = Field(default=None, description="sha256 of the frozen response scored.")
    problems: list[str] = Field(default_factory=list, description="Why the response could not be scored as is.")
    pending: list[str] = Field(default_factory=list, description="Judge requests still unanswered.")
    # free-form: each RQ block is its scorer's own JSON (`scoring.rq1/rq2/rq3.as_json`); reports re-derive
    # them from the frozen response and the recorded judge labels (`run.report`) instead of reading them
    rq1: dict[str, Any] | None = Field(default=None, description="RQ1 (requirement alignment) of the response.")
    # free-form: as rq1
    rq2: dict[str, Any] | None = Field(default=None, description="RQ2 (state alignment) of the response.")
    # free-form: as rq1
    rq3: dict[str, Any] | None = Field(default=None, description="RQ3 (decision, post-task states) of the "
                                       "response; post_state_score is the diagnostic row's score.")
    # free-form: `scoring.consistency.ConsistencyReport.as_json`, re-derived by reports like the RQ blocks
    consistency: dict[str, Any] | None = Field(default=None, description="RQ1/RQ2 consistency flags.")
    judge_calls: int | None = Field(default=None, description="How many judge calls scoring made.")
    # free-form: each judge call as the judge session recorded it (request, labels, accepted), replayed by reports
    judge_records: list[dict[str, Any]] = Field(default_factory=list, description="Every semantic-judge call: "
                                                "judge id, request, label, accepted (replayed by `report`).")


class AgentRun(BaseModel):
    """How the coding agent's step ended (delivery rows)."""

    model_config = ConfigDict(extra="forbid")

    status: str = Field(description="The agent adapter's status.")
    wall_seconds: float = Field(description="The agent's wall-clock seconds.")
    # free-form: the adapter's usage record (tokens, cost, per-model counts) as `core.agents` reports it
    usage: dict[str, Any] = Field(default_factory=dict, description="The agent's self-reported usage.")


class SubmissionRecord(BaseModel):
    """The frozen submission of a delivery row (its patch is also the artifact ``submission.patch``)."""

    model_config = ConfigDict(extra="forbid")

    sha256: str = Field(description="sha256 of the patch.")
    patch: str = Field(description="The patch, re-applied by a re-evaluation of the gates.")


class TakeoverResult(ProtocolResult):
    """One takeover row: the delivery gates or the scored Phase-A response (ReqMemBench §3.1, C.2)."""

    kind: Literal["delivery", "diagnostic"] | None = Field(
        None, description="delivery: three gates decide (C1, C2, oracle, two-phase); diagnostic: Phase A only.")
    target_id: str | None = Field(default=None, description="The takeover target.")
    condition: str | None = Field(default=None,
        description="The condition (C1, C2, oracle-pre, two-phase-C2, diag-C1, ...).")
    delivery: DeliveryDecision | None = Field(default=None, description="The gate decision (delivery rows).")
    # free-form: each gate's check result as the check runner records it (status, exit code, tails, probes)
    checks: dict[str, Any] | None = Field(default=None, description="Each gate's check result (delivery rows).")
    # free-form: `run.stages.PhaseAResult.to_dict`, read back only by its own keys (step_reason)
    phase_a: dict[str, Any] | None = Field(default=None, description="The Phase-A step: agent status, step reason, "
                                           "validity, decision, problems, response hash.")
    score: PhaseAScore | None = Field(default=None, description="RQ1-RQ3 scores of the frozen Phase-A response.")
    # free-form: the agent's own answer, frozen as it gave it (scored against its schema, never trusted)
    response: dict[str, Any] | None = Field(default=None, description="The frozen Phase-A response (diagnostic rows).")
    agent: AgentRun | None = Field(default=None, description="How the coding agent's step ended (delivery rows).")
    submission: SubmissionRecord | None = Field(default=None, description="The frozen submission (delivery rows).")
    gate_rechecks: int | None = Field(default=None, description="How many times the gates were re-checked after a "
                                      "HARNESS_ERROR (`delivery.gates.RECHECK_LIMIT`).")

    def _post_state_score(self) -> float | None:
        rq3 = self.score.rq3 if self.score else None
        value = rq3.get("post_state_score") if isinstance(rq3, dict) else None
        return as_number(value)

    def row_label(self) -> str | None:
        if self.delivery is not None:
            return self.delivery.decision
        if self.kind == "diagnostic":
            decision = (self.phase_a or {}).get("decision")
            return str(decision) if decision else (self.score.status if self.score else None)
        return None

    def row_score(self) -> float | None:
        if self.delivery is not None:
            return None if self.delivery.score is None else float(self.delivery.score)
        return self._post_state_score() if self.kind == "diagnostic" else None

    def row_success(self) -> bool | None:
        if self.delivery is None and self.kind == "diagnostic":
            value = self._post_state_score()
            return None if value is None else value >= 1
        return None

    def row_prose(self) -> str | None:
        if self.delivery is not None:
            return self.delivery.reason
        if self.kind == "diagnostic":
            problems = "; ".join(map(str, (self.phase_a or {}).get("problems") or []))
            return problems or (self.score.status if self.score else None)
        return None

    def row_seconds(self) -> float | None:
        return (self.agent.wall_seconds or None) if self.agent else None
