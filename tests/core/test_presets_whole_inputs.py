"""CLI presets send every input file whole (ReqMemBench D.1: the diagnostic prompt embeds task, history,
instructions and schema "without runner-side truncation or summarization"); a prompt over the model's
context is the agent's scored outcome ``context_overflow``, read from the provider's refusal the gateway
saw, never a silent cut. Stand-in tool executables and a scripted upstream on loopback (`test_presets`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.agents.llm_agent import task_prompt
from reqbench.core.execute.outcomes import REASONS, Reason, status_of
from reqbench.core.execute.types import RowStatus
from reqbench.core.execute.verdict import step_reason
from reqbench.core.llm.gateway.apis import context_overflow
from tests.core.test_presets import CLAUDE_OK, KEY, preset, records
from tests.support.scripted_openai import Reply, ScriptedOpenAI

HISTORY_LINE = '{"message_id": %d, "speaker": "client", "text": "%s"}\n'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text('print("Hello")\n')
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    history = "".join(HISTORY_LINE % (i, f"message {i} " + "x" * 90) for i in range(1, 1001))
    (ws / "history.jsonl").write_text(history + '{"message_id": 1001, "speaker": "client", "text": "LAST"}\n')
    return ws


def test_a_long_history_reaches_the_diagnostic_stage_whole(workspace: Path, tmp_path: Path) -> None:
    history = (workspace / "history.jsonl").read_text()
    assert len(history) > 100_000  # past the built-in agent's per-file cap
    agent = preset(tmp_path, "claude-code", "claude", CLAUDE_OK, stage="diagnostic")
    inputs = AgentInputs(files={"history": workspace / "history.jsonl"}, prompt="Answer with JSON.")
    result = agent.run(workspace, inputs, Budget(wall_seconds=60))
    assert result.status is AgentStatus.COMPLETED
    (rec,) = records(tmp_path)
    assert history in rec["stdin"] and "more characters" not in rec["stdin"]
    # the built-in agent (which has a shell to read the rest) still caps and says so
    capped = task_prompt(workspace, inputs)
    assert "LAST" not in capped and "more characters; read the file" in capped


def test_a_prompt_over_the_context_is_the_agents_context_overflow(workspace: Path, tmp_path: Path) -> None:
    refusal = {"type": "error", "error": {"type": "invalid_request_error",
                                          "message": "prompt is too long: 250000 tokens > 200000 maximum"}}
    failed = json.dumps({"type": "result", "subtype": "success", "is_error": True, "session_id": "s",
                         "result": "API Error: 400 prompt is too long"})
    with ScriptedOpenAI(lambda req, i: Reply(status=400, body=refusal)) as srv:
        agent = preset(tmp_path, "claude-code", "claude", failed, stage="diagnostic", base_url=srv.base_url,
                       api_key=KEY, env={"FAKE_CALLS": "1", "FAKE_EXIT": "1"})
        inputs = AgentInputs(files={"history": workspace / "history.jsonl"}, prompt="Answer with JSON.")
        result = agent.run(workspace, inputs, Budget(wall_seconds=60))
    assert result.status is not AgentStatus.COMPLETED and result.context_overflow
    reason = step_reason(result, [], Budget(wall_seconds=60))
    assert reason is Reason.CONTEXT_OVERFLOW and status_of(reason) is RowStatus.SCORED
    assert REASONS[Reason.CONTEXT_OVERFLOW].agent_caused


def test_only_the_providers_context_refusal_counts() -> None:
    assert context_overflow(400, {"error": {"code": "context_length_exceeded", "message": "too long"}})
    assert context_overflow(400, {"type": "error", "error": {"message": "prompt is too long: 9 > 8"}})
    assert not context_overflow(400, {"error": {"message": "invalid tool schema"}})
    assert not context_overflow(500, {"error": {"message": "context length exceeded"}})
    # a completed step is never an overflow, whatever the flag says
    done = AgentResult(status=AgentStatus.COMPLETED, context_overflow=True)
    assert step_reason(done, [], Budget()) is None
