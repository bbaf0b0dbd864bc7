"""The real Aider (PyPI ``aider-chat``, the pinned version, installed into the agents cache) driven end to
end through the model gateway.

Aider runs in the sandbox with LiteLLM pointed at the gateway relay (OpenAI Chat Completions). Its edits
are text, not tool calls: the scripted upstream answers with the edit block of the format Aider asked
for in its system prompt (SEARCH/REPLACE for ``diff``, the whole file for ``whole``). The row is scored
from the file Aider rewrote; the gateway's records hold the calls and token totals; Aider's chat history
becomes the stored trajectory; an offline rerun replays with zero upstream requests and the same patch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents.base import AgentStatus
from tests.support.real_agents import (
    TASK,
    git,
    installed,
    make_workspace,
    new_store,
    replays_offline,
    run_row,
    score,
)
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body

KEY = "sk-openai-loopback-provider-key"
ROW = "greet|C1|aider|0"
SEARCH_REPLACE = ('greet.py\n```python\n<<<<<<< SEARCH\nprint("Hello")\n=======\nprint("Goodbye")\n'
                  '>>>>>>> REPLACE\n```\n')
WHOLE = 'greet.py\n```python\nprint("Goodbye")\n```\n'


def script(body: dict[str, Any], index: int) -> Reply:
    system = str(body["messages"][0].get("content"))
    block = SEARCH_REPLACE if "SEARCH/REPLACE" in system else WHOLE
    return Reply(body=chat_body("I will change the greeting.\n\n" + block, model=body.get("model", "m"),
                                prompt_tokens=1500, completion_tokens=70))


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_real_aider_through_the_gateway_then_offline_replay(tmp_path: Path) -> None:
    started = time.monotonic()
    installed("aider")
    store, recorder = new_store(tmp_path / "run")
    ws = make_workspace(tmp_path / "ws")
    with ScriptedOpenAI(script) as upstream:
        result = run_row("aider", ROW, store, ws, upstream.base_url, offline=False, model="openai/gpt-4o", key=KEY)
        requests = list(upstream.requests)
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert score(ws) == 1.0  # scored from the file the real binary rewrote
    assert git(ws, "status", "--porcelain") == " M greet.py\n"  # its repo-map cache does not leak
    assert [r["path"] for r in requests] == ["/v1/chat/completions"]
    assert requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert "SEARCH/REPLACE" in str(requests[0]["json"]["messages"][0]["content"])  # gpt-4o: diff format
    assert TASK in json.dumps(requests[0]["json"]["messages"])

    calls = recorder.calls(ROW)
    assert [(c.api, c.source, c.model) for c in calls] == [("chat", "upstream", "gpt-4o")]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (1500, 70)  # gateway-measured
    assert result.usage.cost_usd == pytest.approx(calls[0].cost_usd)
    assert KEY not in json.dumps(calls[0].request)
    # The trajectory, read from Aider's own chat history: the task, the answer, the applied edit.
    note, *events = result.trajectory
    assert note.data["version"] == "0.86.2" and note.data["gateway"]["calls"] == 1
    messages = [(e.data["role"], e.data["content"]) for e in events if e.kind == "message"]
    assert messages[0] == ("user", TASK)
    assert messages[1][0] == "assistant" and "<<<<<<< SEARCH" in messages[1][1]
    assert [e.data["path"] for e in events if e.kind == "file_edit"] == ["greet.py"]
    assert result.reply == messages[-1][1]

    ws2 = make_workspace(tmp_path / "ws2")
    replays_offline("aider", ROW, store, recorder, ws, ws2, script, live_calls=1, model="openai/gpt-4o", key=KEY)
    print(f"aider row live + offline replay in {time.monotonic() - started:.1f}s")
