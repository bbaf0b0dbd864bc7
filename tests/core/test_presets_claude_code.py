"""The real Claude Code (from npm, the pinned version) driven end to end through the model gateway.

The binary runs in the sandbox with no network but the gateway relay; the gateway forwards to a
scripted Anthropic upstream on loopback that answers, in the Messages wire format (streamed to the tool
by the gateway), with the tool calls that fix the task: Read the file, Edit it, then a final answer.
The row is scored from the edit the real binary made; the gateway's records in the run store carry
the calls and token totals; an offline rerun of the row replays them with zero upstream requests and
yields the identical patch. Installs into the agents cache on first use (``reqbench agents install``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents import versions
from reqbench.core.agents.base import AgentStatus
from tests.support.real_agents import installed, make_workspace, new_store, run_row, score
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import messages_body

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

KEY = "sk-ant-loopback-provider-key"
ROW = "greet|C1|claude-code|0"
MODEL = "claude-sonnet-4-5"


def upstream_script(ws_name: str) -> Any:
    """Read, then Edit, then answer; requests without the edit tools (side calls) get a short text."""
    def script(body: dict[str, Any], index: int) -> Reply:
        tools = {t.get("name") for t in body.get("tools") or []}
        model = body.get("model", "m")
        if "Edit" not in tools:
            return Reply(body=messages_body("ok", model=model))
        results = sum(1 for m in body["messages"] if isinstance(m.get("content"), list)
                      for b in m["content"] if b.get("type") == "tool_result")
        cwd = next(Path(line.split(": ", 1)[1]) for m in body["messages"] if isinstance(m.get("content"), list)
                   for b in m["content"] if b.get("type") == "text"
                   for line in b["text"].splitlines() if "Primary working directory: " in line)
        target = str(cwd / "greet.py")
        if results == 0:
            return Reply(body=messages_body("Reading the file.", tool=("Read", {"file_path": target}), model=model,
                                            tool_id="toolu_read", input_tokens=1200, output_tokens=30))
        if results == 1:
            edit = {"file_path": target, "old_string": 'print("Hello")', "new_string": 'print("Goodbye")'}
            return Reply(body=messages_body("Editing.", tool=("Edit", edit), model=model, tool_id="toolu_edit",
                                            input_tokens=1300, output_tokens=60))
        return Reply(body=messages_body("greet.py now prints Goodbye.", model=model, input_tokens=1400,
                                        output_tokens=12))
    return script


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_real_claude_code_through_the_gateway_then_offline_replay(tmp_path: Path) -> None:
    binary, _ = installed("claude-code")
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert versions.PACKAGES["claude-code"].pinned in out
    store, recorder = new_store(tmp_path / "run")

    ws = make_workspace(tmp_path / "ws")
    with ScriptedOpenAI(upstream_script("ws")) as upstream:
        result = run_row("claude-code", ROW, store, ws, upstream.base_url.removesuffix("/v1"), offline=False,
                         model=MODEL, key=KEY)
        live_requests = len(upstream.requests)
        keys = {r["headers"].get("x-api-key") for r in upstream.requests}
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert result.reply == "greet.py now prints Goodbye."
    assert score(ws) == 1.0  # scored from the edit the real binary made
    patch = subprocess.run(["git", "-C", str(ws), "diff"], capture_output=True, text=True).stdout
    assert '+print("Goodbye")' in patch
    assert keys == {KEY}  # the provider key was used by the gateway only

    calls = recorder.calls(ROW)
    assert [c.source for c in calls] == ["upstream"] * live_requests
    main = [c for c in calls if any(t.get("name") == "Edit" for t in c.request.get("tools") or [])]
    assert len(main) == 3 and all(c.request.get("stream") for c in main)  # the tool streamed; we re-streamed
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (
        sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls))
    assert result.usage.prompt_tokens >= 3900 and result.trajectory[0].data["gateway"]["calls"] == live_requests
    assert KEY not in str([c.request for c in calls])

    ws2 = make_workspace(tmp_path / "ws2")
    with ScriptedOpenAI(upstream_script("ws2")) as upstream:
        replayed = run_row("claude-code", ROW, store, ws2, upstream.base_url.removesuffix("/v1"), offline=True,
                           model=MODEL, key=KEY)
        assert upstream.requests == []  # zero upstream requests offline
    assert replayed.status is AgentStatus.COMPLETED, replayed.detail
    patch2 = subprocess.run(["git", "-C", str(ws2), "diff"], capture_output=True, text=True).stdout
    assert score(ws2) == 1.0
    assert patch2.replace("ws2", "ws") == patch
    assert (replayed.usage.prompt_tokens, replayed.usage.completion_tokens) == (
        result.usage.prompt_tokens, result.usage.completion_tokens)
    assert {c.source for c in recorder.calls(ROW)[live_requests:]} == {"replay"}
