"""The assistant side of a journey session: control assistants as sessions, and real agents' sessions.

Controls (they calibrate the scale, they are not models):

* ``reference`` applies, in checklist order, the reference patch of every subtask the user has disclosed
  so far (a subtask stated only in a pivoted, earlier form is not disclosed). It stops at the first
  undisclosed subtask, because later patches build on earlier ones. With every subtask disclosed it
  reaches the whole-task reference state (Final F2P = Final P2P = 1).
* ``null`` changes nothing and says so (Final F2P = 0 on a calibrated instance).

Any other agent spec goes through the agent registry: an agent with ``start_session(workspace)`` (the
built-in ``llm`` agent, CLI presets that resume a session) keeps its own context across turns; an agent
with only ``run`` is re-run every turn with the whole conversation so far as its prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import (
    AgentInputs,
    AgentResult,
    AgentStatus,
    Budget,
    Session,
    TrajectoryEvent,
    Usage,
)
from reqbench.protocols.journey.env import apply_patch, changed_files
from reqbench.protocols.journey.models import Instance

CONTROLS = ("reference", "null")


class ReferenceSession:
    """Applies the disclosed subtasks' reference patches (see module docstring)."""

    def __init__(self, instance: Instance, workspace: Path, disclosed: Callable[[], list[str]]) -> None:
        self.instance = instance
        self.workspace = workspace
        self.disclosed = disclosed
        self.applied: list[str] = []

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        started = time.monotonic()
        known = set(self.disclosed())
        events: list[TrajectoryEvent] = []
        done_now = []
        for sub in self.instance.subtasks:
            if sub.id in self.applied:
                continue
            if sub.id not in known:
                break
            text = self.instance.patch_text(sub)
            apply_patch(self.workspace, text)
            self.applied.append(sub.id)
            done_now.append(sub)
            events.append(TrajectoryEvent("file_edit", {"subtask": sub.id, "files": changed_files(text)}))
        if done_now:
            reply = "Done. I implemented " + "; ".join(f"{s.title}" for s in done_now) + "."
        else:
            reply = "I have nothing new to change for that yet."
        events.append(TrajectoryEvent("reply", {"text": reply}))
        return AgentResult(AgentStatus.COMPLETED, trajectory=events, usage=Usage(cost_usd=0.0),
                           wall_seconds=time.monotonic() - started, reply=reply)

    def close(self) -> None:
        return None


class NullSession:
    """Changes nothing."""

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        reply = "I looked at it but did not change anything."
        return AgentResult(AgentStatus.COMPLETED, trajectory=[TrajectoryEvent("reply", {"text": reply})],
                           usage=Usage(cost_usd=0.0), reply=reply)

    def close(self) -> None:
        return None


class RerunSession:
    """A session over an agent that only has `run`: every turn re-runs it with the transcript so far."""

    def __init__(self, agent: Any, workspace: Path) -> None:
        self.agent = agent
        self.workspace = workspace
        self.transcript: list[str] = []

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        self.transcript.append(f"USER: {user_message}")
        prompt = ("You are helping a user in this repository. The conversation so far follows; act on the "
                  "last user message and end with your reply to the user.\n\n" + "\n\n".join(self.transcript))
        result: AgentResult = self.agent.run(self.workspace, AgentInputs(prompt=prompt), budget)
        self.transcript.append(f"ASSISTANT: {result.reply or ''}")
        return result

    def close(self) -> None:
        return None


def open_session(agent_spec: str, instance: Instance, workspace: Path,
                 disclosed: Callable[[], list[str]], agent_options: dict[str, Any] | None = None) -> Session:
    """The assistant session for one journey session."""
    if agent_spec == "reference":
        return ReferenceSession(instance, workspace, disclosed)
    if agent_spec == "null":
        return NullSession()
    from reqbench.core.agents.registry import make_agent

    agent = make_agent(agent_spec, **(agent_options or {}))
    starter = getattr(agent, "start_session", None)
    if callable(starter):
        session: Session = starter(workspace)
        return session
    return RerunSession(agent, workspace)
