"""`TakeoverResult`: the typed row result of a takeover row (delivery or diagnostic; ReqMemBench §3.1, C.2).
``reqbench schema takeover-row-result`` prints it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.execute.settings import ProtocolResult


class DeliveryDecision(BaseModel):
    """The three-gate decision of a delivery row (ReqMemBench C.2, Table 12)."""

    model_config = ConfigDict(extra="allow")

    decision: str | None = Field(default=None, description="pass, fail, agent_failure or pending.")
    score: int | None = Field(default=None, description="1 for pass, 0 for fail / agent failure, null while pending.")
    statuses: dict[str, str] = Field(default_factory=dict, description="Gate (build, target, regression) -> "
                                     "PASS, FAIL, HARNESS_ERROR or NOT_RUN.")
    primary_failure: str | None = Field(default=None, description="The first gate that did not pass.")
    reason: str | None = Field(default=None, description="Why, in words.")
    cause: str | None = Field(default=None, description="The row's reason code when the agent delivered nothing.")
    skipped_tests: dict[str, Any] | None = Field(default=None, description="Gate -> tests the runner reported skipped.")


class PhaseAScore(BaseModel):
    """RQ1-RQ3 of a frozen Phase-A response, with the judge calls that produced them (C.1)."""

    model_config = ConfigDict(extra="allow")

    status: str | None = Field(default=None, description="scored, pending or not_scored.")
    judge_records: list[dict[str, Any]] = Field(default_factory=list, description="Every semantic-judge call: "
                                                "judge id, request, label, accepted (replayed by `report`).")


class TakeoverResult(ProtocolResult):
    """One takeover row: the delivery gates or the scored Phase-A response (ReqMemBench §3.1, C.2)."""

    kind: Literal["delivery", "diagnostic"] | None = Field(
        None, description="delivery: three gates decide (C1, C2, oracle, two-phase); diagnostic: Phase A only.")
    target_id: str | None = Field(default=None, description="The takeover target.")
    condition: str | None = Field(default=None,
        description="The condition (C1, C2, oracle-pre, two-phase-C2, diag-C1, ...).")
    delivery: DeliveryDecision | None = Field(default=None, description="The gate decision (delivery rows).")
    checks: dict[str, Any] | None = Field(default=None, description="Each gate's check result (delivery rows).")
    phase_a: dict[str, Any] | None = Field(default=None, description="The Phase-A step: agent status, step reason, "
                                           "validity, decision, problems, response hash.")
    score: PhaseAScore | None = Field(default=None, description="RQ1-RQ3 scores of the frozen Phase-A response.")
    response: dict[str, Any] | None = Field(default=None, description="The frozen Phase-A response (diagnostic rows).")
