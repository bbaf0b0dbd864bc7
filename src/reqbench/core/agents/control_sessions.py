"""Multi-turn sessions of the control agents (`null`, `reference`, `replay`), for conversational protocols.

A session answers one user message per `send` in one persistent workspace (`base.Session`). What a
control does per turn comes from the row's `AgentInputs.context`, which a real agent never sees:

* `null` changes nothing and says so, every turn.
* `reference` walks ``context["reference_steps"]``: an ordered list of ``{"id", "title", "patch"}``.
  Each turn it applies, in order, the steps whose id ``context["disclosed"]()`` (a callable: what the
  user has asked for so far) returns, and stops at the first step not yet asked for, because later
  patches build on earlier ones. Without steps, ``context["reference_patch"]`` is applied on the first
  turn (a single-step reference).
* `replay` sends back stored turns: turn N applies the stored entry for (row, turn N); a row stored
  without turn numbers is its turn 1 (see `controls` for the store formats).

Every session reports its progress as a small JSON state (`checkpoint`) and takes it back (`restore`),
so a protocol can resume a session after its process was killed without asking it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, TrajectoryEvent, Usage
from reqbench.core.workspace import apply_patch

NULL_REPLY = "I looked at it but did not change anything."


def _reply(text: str, events: list[TrajectoryEvent], started: float) -> AgentResult:
    events.append(TrajectoryEvent("reply", {"text": text}))
    return AgentResult(AgentStatus.COMPLETED, trajectory=events, usage=Usage(cost_usd=0.0),
                       wall_seconds=time.monotonic() - started, reply=text)


class NullSession:
    """Changes nothing, every turn."""

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        return _reply(NULL_REPLY, [], time.monotonic())

    def checkpoint(self) -> dict[str, Any]:
        return {}

    def restore(self, state: dict[str, Any]) -> None:
        return None

    def close(self) -> None:
        return None


class ReferenceSession:
    """Applies the reference steps the user has asked for so far (see module docstring)."""

    def __init__(self, workspace: Path, steps: list[dict[str, str]], disclosed: Callable[[], list[str]]) -> None:
        self.workspace, self.steps, self.disclosed = workspace, steps, disclosed
        self.applied: list[str] = []

    @classmethod
    def from_inputs(cls, workspace: Path, inputs: AgentInputs) -> ReferenceSession:
        steps = inputs.context.get("reference_steps")
        disclosed = inputs.context.get("disclosed")
        if steps is None:  # a single-step reference: the row's whole patch, asked for from the start
            patch = inputs.context.get("reference_patch")
            if isinstance(patch, Path):
                patch = patch.read_text(encoding="utf-8")
            steps = [] if patch is None else [{"id": "reference", "title": "the requested change",
                                               "patch": str(patch)}]
            disclosed = disclosed or (lambda: ["reference"])
        return cls(Path(workspace), list(steps), disclosed or (lambda: []))

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        started = time.monotonic()
        asked = set(self.disclosed())
        events: list[TrajectoryEvent] = []
        done_now: list[dict[str, str]] = []
        for step in self.steps:
            if step["id"] in self.applied:
                continue
            if step["id"] not in asked:
                break
            apply_patch(self.workspace, step["patch"])
            self.applied.append(step["id"])
            done_now.append(step)
            events.append(TrajectoryEvent("file_edit", {"subtask": step["id"]}))
        if done_now:
            text = "Done. I implemented " + "; ".join(s.get("title") or s["id"] for s in done_now) + "."
        else:
            text = "I have nothing new to change for that yet."
        return _reply(text, events, started)

    def checkpoint(self) -> dict[str, Any]:
        return {"applied": list(self.applied)}

    def restore(self, state: dict[str, Any]) -> None:
        self.applied = [str(s) for s in state.get("applied", [])]

    def close(self) -> None:
        return None


class ReplaySession:
    """Sends back the stored turns of one row, one per `send`; past the last stored turn it changes nothing."""

    def __init__(self, workspace: Path, turns: dict[int, Any], source: str,
                 apply: Callable[[Path, str, float, str, str | None], AgentResult]) -> None:
        self.workspace, self.turns, self.source, self._apply = workspace, turns, source, apply
        self.sent = 0

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        started = time.monotonic()
        self.sent += 1
        entry = self.turns.get(self.sent)
        if entry is None or (entry.patch is None and entry.reply is None):
            return _reply(NULL_REPLY, [], started)
        if entry.patch is None:
            return _reply(entry.reply or "", [], started)
        return self._apply(self.workspace, entry.patch, started, f"{self.source} turn {self.sent}", entry.reply)

    def checkpoint(self) -> dict[str, Any]:
        return {"sent": self.sent}

    def restore(self, state: dict[str, Any]) -> None:
        self.sent = int(state.get("sent", 0))

    def close(self) -> None:
        return None
