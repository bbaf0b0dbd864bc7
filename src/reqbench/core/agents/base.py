"""The Agent protocol: what every adapter (command, presets, llm, controls) implements.

An agent gets a private workspace and *inputs* (files materialised into the workspace: instructions,
history, task — never gold) and a `Budget`; it returns an `AgentResult`. Conversational protocols
(journey) use `Agent.start_session`, which returns a `Session` that keeps working in one persistent
workspace across user turns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


class AgentStatus(StrEnum):
    """How an agent run ended. Only `COMPLETED` runs are scored as deliverables."""

    COMPLETED = "completed"
    """The agent finished within budget (its deliverable is whatever it left in the workspace)."""
    TIMEOUT = "timeout"
    """The wall-clock, step or cost budget ran out; a fixed-budget failure."""
    ERROR = "error"
    """The agent process failed (nonzero exit, crash); a fixed-budget failure."""
    NO_SUBMISSION = "no_submission"
    """The agent ended without producing a deliverable (e.g. no patch when one is required)."""
    PROVIDER_ERROR = "provider_error"
    """The model provider failed (rate limit / 5xx after retries): external, retried, never scored."""


@dataclass(frozen=True)
class Budget:
    """Limits for one agent run. `None` means unlimited."""

    wall_seconds: float | None = 1800.0
    max_steps: int | None = None
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    max_model_calls: int | None = None
    """Model calls (enforced by the model gateway for CLI presets)."""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd}


@dataclass
class TrajectoryEvent:
    """One typed step of a trajectory: kind is message | command | file_edit | test_run | reply | note."""

    kind: str
    data: dict[str, Any]
    ts: float = field(default_factory=time.time)
    usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "ts": self.ts, **self.data}
        if self.usage is not None:
            d["usage"] = self.usage.to_dict()
        return d


@dataclass
class AgentInputs:
    """Files the agent may read, already written inside the workspace, plus free-form context.

    `files` maps a logical name (instructions, history, task, ...) to its path inside the workspace.
    `context` carries per-row data a control agent may use (e.g. the reference patch path for
    `reference`, a stored patch for `replay`); it is never shown to a real agent.
    """

    files: dict[str, Path] = field(default_factory=dict)
    prompt: str = ""
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentResult:
    status: AgentStatus
    trajectory: list[TrajectoryEvent] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    wall_seconds: float = 0.0
    reply: str | None = None
    """Final text answer (Phase-A responses, replies to a simulated user)."""
    detail: str = ""
    context_overflow: bool = False
    """The model refused the prompt as longer than its context (the adapter read it from the provider's
    answer). Never a verdict: it only lets a conversational protocol retry the turn with a shorter history."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "usage": self.usage.to_dict(), "context_overflow": self.context_overflow,
                "wall_seconds": self.wall_seconds, "reply": self.reply, "detail": self.detail,
                "trajectory": [e.to_dict() for e in self.trajectory]}


@runtime_checkable
class Session(Protocol):
    """A conversation with an agent in one persistent workspace (journey)."""

    def send(self, user_message: str, budget: Budget) -> AgentResult: ...

    def close(self) -> None: ...


@runtime_checkable
class Agent(Protocol):
    """Every agent adapter implements `run`; conversational ones also `start_session`."""

    name: str

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult: ...
