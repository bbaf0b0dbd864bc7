"""A small real agent for takeover tests: copies every file of its Phase-A workspace (and its prompt) into a
folder, then replies with the answer a replies file holds for the task's message id.

Options: ``copy_to`` (folder; one sub-folder per task message id), ``replies`` (a JSON file
``{message_id: reply text}``), ``stage`` (set by the protocol)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget


@dataclass
class PhaseASpy:
    copy_to: str
    replies: str | None = None
    stage: str = ""
    name: str = "phase-a-spy"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        message_id = str(json.loads((Path(workspace) / "task.json").read_text())["task"]["message_id"])
        dest = Path(self.copy_to) / message_id
        dest.mkdir(parents=True, exist_ok=True)
        for path in Path(workspace).iterdir():
            if path.is_file():
                (dest / path.name).write_bytes(path.read_bytes())
        (dest / "prompt.txt").write_bytes(inputs.prompt.encode("utf-8"))
        replies = json.loads(Path(self.replies).read_text()) if self.replies else {}
        return AgentResult(AgentStatus.COMPLETED, reply=replies.get(message_id, ""))


def make_spy(**options: Any) -> PhaseASpy:
    return PhaseASpy(**options)
