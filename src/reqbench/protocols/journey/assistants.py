"""The assistant side of a journey session: every assistant, controls included, as a `Session`.

Any agent spec goes through the agent registry. The controls (core `null`, `reference`, `replay`) serve
multi-turn sessions themselves (`core.agents.control_sessions`): they calibrate the scale, they are not
models. ``reference`` applies, in checklist order, the reference patch of every subtask the user has
disclosed so far (a subtask stated only in a pivoted, earlier form is not disclosed) and stops at the
first undisclosed one, because later patches build on earlier ones; with every subtask disclosed it
reaches the whole-task reference state (Final F2P = Final P2P = 1). ``null`` changes nothing (Final F2P =
0 on a calibrated instance). ``replay`` sends back stored turns.

An agent with ``start_session(workspace)`` (the built-in ``llm`` agent, CLI presets that resume a
session) keeps its own context across turns; an agent with only ``run`` is re-run every turn with the
whole conversation so far as its prompt.

A session that offers ``checkpoint()`` / ``restore(state)`` can be resumed after its process died
(`checkpoints`); the others start over.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget, Session
from reqbench.core.agents.controls import NullAgent, ReferenceAgent, ReplayAgent
from reqbench.protocols.journey.models import Instance

CONTROLS = (NullAgent, ReferenceAgent, ReplayAgent)
"""The agents that may read a row's answers (reference patches, disclosed subtasks) from its context."""


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

    def checkpoint(self) -> dict[str, Any]:
        return {"transcript": list(self.transcript)}

    def restore(self, state: dict[str, Any]) -> None:
        self.transcript = [str(t) for t in state.get("transcript", [])]

    def close(self) -> None:
        return None


def control_context(instance: Instance, disclosed: Callable[[], list[str]], row_key: str) -> dict[str, Any]:
    """What a control assistant may read (never shown to a real agent): the subtasks' reference patches in
    checklist order, the live set of disclosed subtasks, the row key (for `replay`)."""
    steps = [{"id": sub.id, "title": sub.title, "patch": instance.patch_text(sub)} for sub in instance.subtasks]
    return {"reference_steps": steps, "disclosed": disclosed, "row_key": row_key}


def open_session(agent_spec: str, instance: Instance, workspace: Path, disclosed: Callable[[], list[str]],
                 agent_options: dict[str, Any] | None = None, row_key: str = "") -> Session:
    """The assistant session for one journey session."""
    from reqbench.core.agents.registry import make_agent

    agent = make_agent(agent_spec, **(agent_options or {}))
    starter = getattr(agent, "start_session", None)
    if callable(starter):
        params = inspect.signature(starter).parameters
        if isinstance(agent, CONTROLS):  # the answers go to controls only, never to an agent under test
            inputs = AgentInputs(context=control_context(instance, disclosed, row_key))
            session: Session = starter(workspace, inputs=inputs)
        elif "sample" in params:
            session = starter(workspace, sample=row_key or 0)
        else:
            session = starter(workspace)
        return session
    return RerunSession(agent, workspace)
