"""The simulated-user interface shared by the deterministic and the llm simulator (SWE-Journey §3.3, B.1).

A simulator holds the hidden checklist (the instance's subtasks), decides what to disclose and when,
verifies the assistant's work in its persona's style, and tracks per-subtask status and a confidence
score (0-100; 0 ends the session). The session loop calls `open()` once and then `respond()` after every
assistant turn with an `Observation`; each call returns a `UserTurn`.

`disclosed` names the subtasks whose *real* request has been stated so far -- a goal stated in an earlier,
abandoned form (a pivot) is not disclosed until the user corrects it. Control assistants read this set
(`reference` applies exactly the disclosed subtasks' patches); real assistants never see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from reqbench.core.agents.base import Usage
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import TestRun
from reqbench.protocols.journey.personas import Persona


class SubtaskStatus(StrEnum):
    """Where a subtask of the hidden checklist stands, from the user's point of view."""

    HIDDEN = "hidden"
    """Not mentioned yet."""
    ACTIVE = "active"
    """Mentioned and not yet accepted (possibly only in an earlier, pivoted form)."""
    DONE = "done"
    """The user verified it in their style and accepted it (a visible regression reopens it)."""
    DROPPED = "dropped"
    """The user gave up on it after running out of patience."""


class EndReason(StrEnum):
    """Why a session ended (B.1)."""

    ALL_RESOLVED = "all_resolved"
    """Every subtask is done or dropped."""
    CONFIDENCE_ZERO = "confidence_zero"
    """The user's confidence reached 0: the user abandons the session."""
    TURN_LIMIT = "turn_limit"
    """The shared turn limit was reached."""
    SINGLE_SHOT = "single_shot"
    """Single-shot mode: one prompt, one assistant turn, no simulator (B.2)."""
    HARNESS_ENDED = "harness_ended"
    """The harness failed an assistant step (a provider or launcher failure it recorded): not scored."""


@dataclass
class Observation:
    """What the user can learn after one assistant turn. Which parts a simulator *uses* is its persona's
    verification style; the hidden test results are available to it as a tool (B.1)."""

    turn: int
    reply: str
    changed_files: list[str]
    tests: TestRun
    previous: TestRun
    snapshot: Path | None = None
    assistant_failed: bool = False


@dataclass
class UserTurn:
    message: str
    confidence: int
    statuses: dict[str, str]
    disclosed: list[str] = field(default_factory=list)
    """Subtasks whose real request is first stated in this message."""
    end: EndReason | None = None
    notes: dict[str, Any] = field(default_factory=dict)


class SimState:
    """Per-subtask status and confidence, with the transitions both simulators share."""

    def __init__(self, instance: Instance, persona: Persona) -> None:
        self.instance = instance
        self.persona = persona
        self.status: dict[str, SubtaskStatus] = {s.id: SubtaskStatus.HIDDEN for s in instance.subtasks}
        self.confidence = persona.initial_confidence
        self.disclosed: list[str] = []

    def adjust(self, delta: int) -> None:
        self.confidence = max(0, min(100, self.confidence + delta))

    def ids(self, status: SubtaskStatus) -> list[str]:
        return [sid for sid, st in self.status.items() if st is status]

    def resolved(self) -> bool:
        return all(st in (SubtaskStatus.DONE, SubtaskStatus.DROPPED) for st in self.status.values())

    def next_batch(self, size: int) -> list[str]:
        """The next hidden subtasks in checklist order, at most `size`, never crossing a stage boundary."""
        hidden = self.ids(SubtaskStatus.HIDDEN)
        if not hidden:
            return []
        stage = self.instance.stage_of[hidden[0]]
        return [sid for sid in hidden if self.instance.stage_of[sid] == stage][:size]

    def snapshot(self) -> dict[str, str]:
        return {sid: st.value for sid, st in self.status.items()}

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON (a simulator's checkpoint, `checkpoints`)."""
        return {"status": self.snapshot(), "confidence": self.confidence, "disclosed": list(self.disclosed)}

    def load(self, data: dict[str, Any]) -> None:
        self.status = {sid: SubtaskStatus(st) for sid, st in data["status"].items()}
        self.confidence = int(data["confidence"])
        self.disclosed = [str(s) for s in data["disclosed"]]


def turn_to_dict(turn: UserTurn) -> dict[str, Any]:
    return {"message": turn.message, "confidence": turn.confidence, "statuses": dict(turn.statuses),
            "disclosed": list(turn.disclosed), "end": turn.end.value if turn.end else None,
            "notes": turn.notes}


def turn_from_dict(data: dict[str, Any]) -> UserTurn:
    return UserTurn(message=data["message"], confidence=int(data["confidence"]), statuses=dict(data["statuses"]),
                    disclosed=list(data["disclosed"]), end=EndReason(data["end"]) if data["end"] else None,
                    notes=dict(data["notes"]))


class UserSimulator(Protocol):
    name: str
    state: SimState
    usage: Usage
    """Simulator tokens, accounted separately from the assistant's (B.1: not part of session cost)."""

    def open(self, base: TestRun) -> UserTurn:
        """The first user message (nothing has happened yet; `base` is the base repository's results)."""
        ...

    def respond(self, obs: Observation) -> UserTurn:
        """The user's reaction to one assistant turn."""
        ...

    def checkpoint(self) -> dict[str, Any]:
        """Everything `respond` depends on besides the observation, as JSON (state, usage, history)."""
        ...

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a `checkpoint` taken by a simulator built with the same arguments."""
        ...
