"""A harbor row's typed result (`HarborResult`, the protocol's ``result_model``): the score, the task's
rewards and each phase run."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.execute.settings import ProtocolResult


class StepRecord(BaseModel):
    """One phase of a row."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The phase: 'task' for a single-step task, else the step's name")
    rewards: dict[str, float] | None = Field(default=None, description="What the verifier wrote (null: an error)")
    error: str | None = Field(default=None, description="Why there are no rewards (Harbor's verifier exception)")
    agent: str | None = Field(default=None, description="How the agent run ended when it did not complete")
    stopped: str | None = Field(default=None, description="The min_reward failure that stopped the remaining steps")


class HarborResult(ProtocolResult):
    """A harbor row's result."""

    reward: float = Field(description="The row's score: the 'reward' key, else the mean of the keys; 0 "
                                      "without rewards")
    rewards: dict[str, float] | None = Field(default=None,
                                             description="The task's rewards (multi-step: by the strategy)")
    verdict: str | None = Field(None, description="'reward' (the verifier wrote one), 'no reward written' or "
                                                 "'verifier error' (the row scores 0 but is never a pass)")
    strategy: str | None = Field(default=None, description="multi_step_reward_strategy of a multi-step task")
    steps: list[StepRecord] = Field(default_factory=list, description="Each phase run, in order")

    def row_label(self) -> str | None:
        return self.verdict

    def row_score(self) -> float | None:
        return self.reward

    def row_prose(self) -> str | None:
        stopped = next((s.stopped for s in self.steps if s.stopped), None)
        return stopped or next((s.error for s in self.steps if s.error), None)
