"""`JourneyResult`: the typed row result of a journey session (SWE-Journey §3.4, §4).
``reqbench schema journey-row-result`` prints it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from reqbench.core.execute.settings import ProtocolResult


class JourneyResult(ProtocolResult):
    """One journey session: metrics, capabilities and a per-turn trace (SWE-Journey §3.4, §4)."""

    mode: str | None = Field(None, description="interactive or single-shot.")
    simulator: str | None = Field(None, description="The simulated user (deterministic, llm, none).")
    end_reason: str | None = Field(None, description="Why the session ended (all_resolved, confidence_zero, "
                                   "turn_limit, single_shot, harness_ended).")
    capabilities: dict[str, Any] | None = Field(None, description="Interaction-capability metrics of the session.")
    trace: list[dict[str, Any]] | None = Field(None, description="Per turn: disclosed and active subtasks, "
                                               "stage, status, changed files, passing tests, confidence.")
    frozen_user: dict[str, Any] | None = Field(None, description="With journey.frozen_user: reactions of the "
                                               "simulated user, how many were replayed from the pilot, and the "
                                               "first divergence (position, why).")
    frozen: bool | None = Field(None, description="False when the session stopped on a harness failure and "
                                "continues from its checkpoints.")
