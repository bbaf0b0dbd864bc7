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

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget
from reqbench.core.execute.agent_step import StepSession
from reqbench.core.execute.suite import RowContext
from reqbench.protocols.journey.models import Instance


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


def open_session(ctx: RowContext, instance: Instance, workspace: Path, disclosed: Callable[[], list[str]],
                 agent_options: dict[str, Any] | None = None) -> StepSession:
    """The assistant session for one journey session, opened by core (`RowContext.session`): the controls
    get their answers (`control_context`), an agent with only ``run`` is re-run every turn."""
    row_key = ctx.row.key if ctx.row is not None else ""
    return ctx.session(workspace, answers=control_context(instance, disclosed, row_key),
                       agent_options=agent_options, rerun=RerunSession)
