"""A journey assistant that logs every message it is asked to answer: core's `reference` control with a
log. Loaded by dotted path (``--agent tests.protocols.journey.spy_agent:make_spy``), so it also works in a
`reqbench run` subprocess; each `send` appends one JSON line ``{"message": ...}`` to the file ``log``
before answering (``sleep`` seconds later), so a test can count exactly which turns were asked."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget
from reqbench.core.agents.control_sessions import ReferenceSession
from reqbench.core.agents.controls import ReferenceAgent


class SpySession(ReferenceSession):
    log: Path
    sleep: float

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"message": user_message}) + "\n")
        time.sleep(self.sleep)
        return super().send(user_message, budget)


class SpyAgent(ReferenceAgent):
    def __init__(self, log: Path, sleep: float) -> None:
        super().__init__(name="spy")
        self.log, self.sleep = log, sleep

    def start_session(self, workspace: Path, inputs: AgentInputs | None = None) -> SpySession:
        base = ReferenceSession.from_inputs(Path(workspace), inputs or AgentInputs())
        session = SpySession(base.workspace, base.steps, base.disclosed)
        session.log, session.sleep = self.log, self.sleep
        return session


def make_spy(log: str = "", sleep: str = "0", **opts: Any) -> SpyAgent:
    return SpyAgent(Path(log), float(sleep))


def asked(log: Path) -> list[str]:
    """The messages the spy was asked to answer, in order."""
    if not log.exists():
        return []
    return [json.loads(line)["message"] for line in log.read_text(encoding="utf-8").splitlines()]
