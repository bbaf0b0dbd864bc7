"""The real Codex CLI (npm ``@openai/codex``, the pinned version) driven end to end through the model gateway.

``codex exec`` runs in the sandbox with the gateway as a custom model provider (Responses API; the
gateway streams each answer to it as SSE). The scripted upstream answers with ``exec_command`` tool
calls in the Responses wire format: first a command that tries to reach the upstream directly (it
must fail: the sandbox's only network is the gateway relay), then an ``apply_patch`` that fixes the
file, then the final answer. The row is scored from the real binary's edit; the run store holds the
calls and token totals; an offline rerun replays them with zero upstream requests and the same patch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents.base import AgentStatus
from tests.support.real_agents import installed, make_workspace, new_store, replays_offline, run_row, same_patch, score
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import responses_body

KEY = "sk-openai-loopback-provider-key"
ROW = "greet|C1|codex|0"
PATCH = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: greet.py\n@@\n-print(\"Hello\")\n"
         "+print(\"Goodbye\")\n*** End Patch\nEOF\n")


def probe(port: int) -> str:
    """A command reaching the upstream's real address, bypassing the gateway."""
    return (f"python3 -c \"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{port}/v1/models', "
            f"timeout=5); print('REACH' + 'ED')\"")


def upstream_script(port: int) -> Any:
    def script(body: dict[str, Any], index: int) -> Reply:
        model = body.get("model", "m")
        if not any(t.get("name") == "exec_command" for t in body.get("tools") or []):
            return Reply(body=responses_body("ok", model=model))  # a side call, if the tool makes one
        done = sum(1 for item in body.get("input") or [] if item.get("type") == "function_call_output")
        if done == 0:
            return Reply(body=responses_body("Checking the network.", tool=("exec_command", {"cmd": probe(port)}),
                                             model=model, call_id="call_probe", input_tokens=2000,
                                             output_tokens=40))
        if done == 1:
            return Reply(body=responses_body("Editing greet.py.", tool=("exec_command", {"cmd": PATCH}),
                                             model=model, call_id="call_patch", input_tokens=2100,
                                             output_tokens=60))
        return Reply(body=responses_body("greet.py now prints Goodbye.", model=model, input_tokens=2200,
                                         output_tokens=12))
    return script


def outputs(request: dict[str, Any]) -> dict[str, str]:
    return {i["call_id"]: str(i.get("output")) for i in request["json"]["input"]
            if i.get("type") == "function_call_output"}


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_real_codex_through_the_gateway_then_offline_replay(tmp_path: Path) -> None:
    started = time.monotonic()
    installed("codex")
    store, recorder = new_store(tmp_path / "run")
    ws = make_workspace(tmp_path / "ws")
    with ScriptedOpenAI(upstream_script(0)) as upstream:
        upstream.script = upstream_script(upstream.port)
        result = run_row("codex", ROW, store, ws, upstream.base_url, offline=False, model="gpt-5-codex", key=KEY)
        requests = list(upstream.requests)
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert result.reply == "greet.py now prints Goodbye."
    assert score(ws) == 1.0  # scored from the edit the real binary made
    patch, _ = same_patch(ws, ws)
    assert '+print("Goodbye")' in patch
    # Every upstream request came from the gateway, with the provider key; the probe never arrived.
    assert {r["path"] for r in requests} == {"/v1/responses"}
    assert {r["headers"].get("authorization") for r in requests} == {f"Bearer {KEY}"}
    last = outputs(requests[-1])
    assert "REACHED" not in last["call_probe"] and "Connection refused" in last["call_probe"]
    assert "exited with code 1" in last["call_probe"]
    assert "Success" in last["call_patch"]

    calls = recorder.calls(ROW)
    assert len(calls) == len(requests) == 3 and [c.source for c in calls] == ["upstream"] * 3
    assert all(c.api == "responses" and c.request.get("stream") for c in calls)  # codex streams; we re-streamed
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (6300, 112)  # gateway-measured
    assert KEY not in json.dumps([c.request for c in calls])
    note, *events = result.trajectory
    assert note.data["agent"] == "codex" and note.data["version"] == "0.171.0"
    assert note.data["gateway"]["calls"] == 3
    commands = [e.data for e in events if e.kind == "command"]
    assert len(commands) == 1 and commands[0]["exit_code"] == 1  # the blocked probe, from codex's own events
    edits = [e.data for e in events if e.kind == "file_edit"]
    assert [c["path"] for e in edits for c in e["changes"]] == [str(ws / "greet.py")]
    assert events[-1].kind == "reply" and events[-1].data["content"] == result.reply

    ws2 = make_workspace(tmp_path / "ws2")
    replayed = replays_offline("codex", ROW, store, recorder, ws, ws2, upstream_script(1), live_calls=3,
                               model="gpt-5-codex", key=KEY)
    assert (replayed.usage.prompt_tokens, replayed.usage.completion_tokens) == (6300, 112)
    print(f"codex row live + offline replay in {time.monotonic() - started:.1f}s")
