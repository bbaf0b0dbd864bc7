"""`TakeoverResult`: the typed row result of a takeover row (delivery or diagnostic; ReqMemBench §3.1, C.2).
``reqbench schema takeover-row-result`` prints it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from reqbench.core.execute.settings import ProtocolResult


class TakeoverResult(ProtocolResult):
    """One takeover row: the delivery gates or the scored Phase-A response (ReqMemBench §3.1, C.2)."""

    kind: Literal["delivery", "diagnostic"] | None = Field(
        None, description="delivery: three gates decide (C1, C2, oracle, two-phase); diagnostic: Phase A only.")
    target_id: str | None = Field(None, description="The takeover target.")
    condition: str | None = Field(None, description="The condition (C1, C2, oracle-pre, two-phase-C2, diag-C1, ...).")
    delivery: dict[str, Any] | None = Field(None, description="The gate decision: decision, score, statuses, "
                                            "primary_failure, reason, cause (delivery rows).")
    checks: dict[str, Any] | None = Field(None, description="Each gate's check result (delivery rows).")
    phase_a: dict[str, Any] | None = Field(None, description="The Phase-A step: agent status, step reason, "
                                           "validity, decision, problems, response hash.")
    score: dict[str, Any] | None = Field(None, description="RQ1-RQ3 scores of the frozen Phase-A response.")
    response: dict[str, Any] | None = Field(None, description="The frozen Phase-A response (diagnostic rows).")
