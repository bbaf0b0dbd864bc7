"""`JourneyResult`: the typed row result of a journey session (SWE-Journey §3.4, §4).
``reqbench schema journey-row-result`` prints it."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from reqbench.core.execute.settings import ProtocolResult


class TurnTrace(TypedDict):
    """One turn of a session's trace (validated like a model, kept a mapping)."""

    turn: int
    disclosed: list[str]
    active: list[str]
    stage: int
    status: str
    changed_files: list[str]
    passed: list[str]
    confidence: int | None
    steps: int
    cost_usd: float | None
    # absent when the turn's workspace was accepted: the schema states that as the default, ""
    workspace_rejected: NotRequired[Annotated[str, Field(json_schema_extra={"default": ""})]]


class FirstDivergence(TypedDict):
    position: int
    why: str


class FrozenUserReplay(TypedDict):
    """How a session run with a frozen simulated user went (`journey.frozen_user.replay_summary`)."""

    reactions: int
    replayed: int
    first_divergence: FirstDivergence | None


class JourneyResult(ProtocolResult):
    """One journey session: metrics, capabilities and a per-turn trace (SWE-Journey §3.4, §4)."""

    mode: str | None = Field(default=None, description="interactive or single-shot.")
    simulator: str | None = Field(default=None, description="The simulated user (deterministic, llm, none).")
    end_reason: str | None = Field(default=None, description="Why the session ended (all_resolved, confidence_zero, "
                                   "turn_limit, single_shot, harness_ended).")
    proc_f2p: float | None = Field(default=None, description="Proc F2P (SWE-Journey §3.4): each stage's F2P nodes "
                                   "run when the session moves past the stage (at the end for a stage it never "
                                   "moves past), passing / all, pooled over stages; null in single-shot mode.")
    final_f2p: float | None = Field(default=None, description="Final F2P: subtask F2P tests passing at the end.")
    final_p2p: float | None = Field(default=None, description="Final P2P: regression tests still passing at the end.")
    turns: int | None = Field(default=None, description="Turns in the session.")
    cost_usd: float | None = Field(default=None,
        description="The assistant's cost over the session (USD), when priced.")
    final_confidence: int | None = Field(default=None,
        description="The simulated user's confidence at the end (0-100).")
    assistant_tokens: int | None = Field(default=None, description="Tokens of the assistant over the session.")
    simulator_tokens: int | None = Field(default=None, description="Tokens of the simulated user over the session.")
    # free-form: the capability metrics a session gets depend on the judge method that scored it (heuristic
    # or judged, with ``judge_pending`` / ``turn_labels`` only for some), `journey.capability`
    capabilities: dict[str, Any] | None = Field(default=None,
        description="Interaction-capability metrics of the session.")
    trace: list[TurnTrace] | None = Field(default=None, description="Per turn: disclosed and active subtasks, "
                                               "stage, status, changed files, passing tests, confidence.")
    frozen_user: FrozenUserReplay | None = Field(default=None, description="With journey.frozen_user: reactions of the "
                                               "simulated user, how many were replayed from the pilot, and the "
                                               "first divergence (position, why).")
    simulator_model: str | None = Field(default=None, description="The simulated user's model (an LLM simulator).")
    stage_exit_turn: dict[str, int] | None = Field(
        default=None, description="Stage -> the turn at which the session moved past it (Proc F2P runs each "
                                  "stage's tests there).")

    def row_label(self) -> str | None:
        return self.end_reason

    def row_score(self) -> float | None:
        return self.final_f2p

    def row_success(self) -> bool | None:
        return None if self.final_f2p is None else self.final_f2p >= 1

    def row_prose(self) -> str | None:
        return f"proc F2P {self.proc_f2p}, confidence {self.final_confidence}"
