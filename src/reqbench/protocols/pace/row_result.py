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
    # free-form: each Code Point's scoring record (`score.PointResult.to_dict`); audit, severity changes and
    # connection checks appear only where they ran
    points: list[dict[str, Any]] | None = Field(default=None, description="Per Code Point: stage, checklist, evidence.")
    # free-form: `attribution.attribute_case` (loss by symptom, symptoms per point), keyed by symptom names
    attribution: dict[str, Any] | None = Field(default=None, description="Symptom attribution of the points lost "
                                               "(PACE-Bench §5.3): loss_by_symptom, symptoms per point.")
    agent_status: str | None = Field(default=None, description="How the agent's step ended (its adapter's status).")
    agent_reason: str | None = Field(default=None, description="The verdict table's reason when the agent's step did "
                                     "not complete (the case is still scored on what it left).")
    # free-form: the agent's trajectory events as its adapter recorded them (each kind has its own fields)
    trajectory: list[dict[str, Any]] | None = Field(
        default=None, description="The agent's trajectory events, on a row whose step the harness failed.")
    unresolved: list[str] | None = Field(default=None, description="Code Points whose evidence stayed unresolved.")
    frozen_hash: str | None = Field(default=None, description="The case's frozen-content hash it was scored under.")
    patch_sha256: str | None = Field(default=None, description="sha256 of the scored candidate patch.")
    # free-form: the process signals found in the trajectory (`pace.attribution.process_signals`): their
    # names, counts and the files they concern vary with what the agent did
    process_signals: dict[str, Any] | None = Field(
        default=None, description="Process signals of the agent's trajectory (PACE-Bench §5.3): signals, edits, "
                                  "verification commands, expected files never retrieved.")
    # free-form: per-observation findings of `pace.attribution.quality_observations`
    quality: dict[str, Any] | None = Field(default=None, description="Code-quality observations of the patch: "
                                           "conventions, naming, test delivery.")
    trajectory_events: int | None = Field(default=None, description="How many trajectory events the agent left.")
    workspace_rejected: str | None = Field(default=None, description="Why the agent's workspace could not be "
                                           "taken (then scored as the empty candidate).")
    patch_apply_failure: str | None = Field(default=None, description="Why the candidate patch did not apply "
                                            "(then scored as the empty candidate).")

    def symptoms_and_signals(self) -> tuple[list[str], list[str]]:
        """The case's symptoms (attribution) and its process signals, for their co-occurrence table."""
        return (list((self.attribution or {}).get("symptoms", [])),
                list((self.process_signals or {}).get("signals", [])))

    def row_label(self) -> str | None:
        return "complete" if self.complete else "incomplete"

    def row_score(self) -> float | None:
        return self.score

    def row_success(self) -> bool | None:
        return bool(self.complete)

    def row_prose(self) -> str | None:
        verdicts = self.verdicts or {}
        covered = sum(1 for v in verdicts.values() if v == "Covered")
        return f"{covered}/{len(verdicts)} code points covered"
