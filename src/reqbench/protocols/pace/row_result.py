"""`PaceResult`: the typed row result of a PACE case (PACE-Bench §3-4: Code Point verdicts, case score).
``reqbench schema pace-row-result`` prints it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from reqbench.core.execute.settings import ProtocolResult


class PaceResult(ProtocolResult):
    """One PACE case: Code Point verdicts and the weighted case score (PACE-Bench §3-4)."""

    case_id: str | None = Field(default=None, description="The case.")
    score: float | None = Field(default=None, description="The weighted case score in [0, 100]; null while evidence or "
                                "the judge is pending, or when the harness failed the agent's step.")
    complete: bool | None = Field(default=None, description="Every Code Point Covered (the success-rate numerator).")
    verdicts: dict[str, str] | None = Field(default=None, description="Code Point id -> Covered | Partial | Missing | "
                                            "Unresolved.")
    points: list[dict[str, Any]] | None = Field(default=None, description="Per Code Point: stage, checklist, evidence.")
    attribution: dict[str, Any] | None = Field(default=None, description="Symptom attribution of the points lost "
                                               "(PACE-Bench §5.3): loss_by_symptom, symptoms per point.")
    agent_status: str | None = Field(default=None, description="How the agent's step ended (its adapter's status).")
    agent_reason: str | None = Field(default=None, description="The verdict table's reason when the agent's step did "
                                     "not complete (the case is still scored on what it left).")
