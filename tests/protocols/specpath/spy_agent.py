"""A small real agent for tests: records what it was shown, then edits the workspace as told.

Options: ``log`` (file to write {files, prompt, context keys} to), ``write`` (dict path -> text to
write into the workspace), ``status`` (AgentStatus value to end with), ``cost`` (reported USD),
``provider`` (an OpenAI-compatible base URL: one real chat call through the harness's client first; a
`ProviderError` ends the run as an ERROR, as an adapter that caught it would), ``needs_seconds`` (a
budget below this many seconds ends the run as a TIMEOUT before anything is written: a deterministic
stand-in for an agent that needs that long).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, Usage


@dataclass
class SpyAgent:
    log: str | None = None
    write: dict[str, str] = field(default_factory=dict)
    status: str = "completed"
    cost: float | None = None
    provider: str | None = None
    needs_seconds: float | None = None
    model: str | None = None
    """Accepted like a real scaffold's ``--model`` (the configuration records it); unused."""
    name: str = "spy"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        if self.log:
            files = sorted(str(p.relative_to(workspace)) for p in Path(workspace).rglob("*") if p.is_file())
            Path(self.log).write_text(json.dumps({"files": files, "prompt": inputs.prompt,
                                                  "context": sorted(inputs.context),
                                                  "history": {k: str(v) for k, v in inputs.files.items()},
                                                  "budget": budget.wall_seconds,
                                                  "max_steps": budget.max_steps}))
        if self.needs_seconds is not None and (budget.wall_seconds or 0) < float(self.needs_seconds):
            return AgentResult(AgentStatus.TIMEOUT, detail=f"needs {self.needs_seconds} s")
        if self.provider:
            from reqbench.core.llm.client import ChatClient, LLMConfig
            from reqbench.core.llm.errors import ProviderError

            client = ChatClient(LLMConfig(base_url=self.provider, api_key="k", attempts=3, backoff_base=0.01,
                                          backoff_max=0.01))
            try:
                client.complete([{"role": "user", "content": "hi"}], model="m")
            except ProviderError:
                return AgentResult(AgentStatus.ERROR, detail="provider failed")
        for rel, text in self.write.items():
            target = Path(workspace) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        return AgentResult(AgentStatus(self.status), usage=Usage(cost_usd=self.cost))


def make_spy(**options: Any) -> SpyAgent:
    return SpyAgent(**options)
