"""The real OpenHands CLI (PyPI ``openhands``, the pinned version, installed into the agents cache with the
Python 3.12 it requires) driven end to end through the model gateway.

``openhands --headless --json`` runs in the sandbox on its local workspace (no containers), its LiteLLM
model pointed at the gateway relay (OpenAI Chat Completions with tool calls). The scripted upstream
answers in that wire format with the tools OpenHands declares: a ``terminal`` command that tries to
reach the upstream directly (it must fail: the sandbox's only network is the gateway relay), a
``file_editor`` ``str_replace`` that fixes the file, then ``finish``. The row is scored from the real
binary's edit; the run store holds the calls and token totals; OpenHands' JSON events become the stored
trajectory; an offline rerun replays them with zero upstream requests and the same patch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reqbench.cli.agents_cmd import describe_agents
from reqbench.core.agents import versions
from reqbench.core.agents.atif import steps_of
from reqbench.core.agents.base import AgentResult, AgentStatus, Budget
from reqbench.core.agents.registry import make_agent
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.llm.run_access import offline_run
from reqbench.core.store import RunStore
from reqbench.core.store.active import activate
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
from tests.support.scripted_openai import Reply, ScriptedOpenAI, completion

KEY = "sk-openai-loopback-provider-key"
ROW = "greet|C1|openhands|0"
MODEL = "openai/gpt-4o"
REPLY = "greet.py now prints Goodbye."


def probe(port: int) -> str:
    """A command reaching the upstream's real address, bypassing the gateway."""
    return (f"python3 -c \"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{port}/v1/models', "
            f"timeout=5); print('REACH' + 'ED')\"")


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def upstream_script(port: int, ws: Path) -> Any:
    """The next step from the tool results already in the conversation, so a replay takes the same path."""
    def script(body: dict[str, Any], index: int) -> Reply:
        model = body.get("model", "m")
        if not any(t.get("function", {}).get("name") == "file_editor" for t in body.get("tools") or []):
            return Reply(body=completion("ok", model=model))  # a side call (a condensation), if one is made
        done = sum(1 for m in body.get("messages") or [] if m.get("role") == "tool")
        if done == 0:
            step = call("call_probe", "terminal", {"command": probe(port), "security_risk": "LOW",
                                                   "summary": "check the network"})
            return Reply(body=completion("Checking the network.", tool_calls=[step], model=model,
                                         prompt_tokens=3000, completion_tokens=40))
        if done == 1:
            step = call("call_edit", "file_editor", {"command": "str_replace", "path": str(ws / "greet.py"),
                                                     "old_str": 'print("Hello")', "new_str": 'print("Goodbye")',
                                                     "security_risk": "LOW", "summary": "edit greet.py"})
            return Reply(body=completion("Editing greet.py.", tool_calls=[step], model=model,
                                         prompt_tokens=3100, completion_tokens=60))
        step = call("call_finish", "finish", {"message": REPLY})
        return Reply(body=completion("", tool_calls=[step], model=model, prompt_tokens=3200, completion_tokens=12))
    return script


def tool_results(request: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: json.dumps(m.get("content")) for m in request["json"]["messages"]
            if m.get("role") == "tool"}


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_real_openhands_through_the_gateway_then_offline_replay(tmp_path: Path) -> None:
    started = time.monotonic()
    if versions.cached_binary("openhands") is None and versions.find_python("3.12") is None:
        pytest.skip("openhands needs Python 3.12 and none was found (set REQBENCH_PYTHON_3_12)")
    binary, _ = installed("openhands")
    listed = {row["name"]: row for row in describe_agents()}["openhands"]
    assert (listed["pinned_version"], listed["installed"]) == ("1.16.0", f"cache: {binary}")
    store, recorder = new_store(tmp_path / "run")
    ws = make_workspace(tmp_path / "ws")
    row_started = time.monotonic()
    with ScriptedOpenAI(upstream_script(0, ws)) as upstream:
        upstream.script = upstream_script(upstream.port, ws)
        result = run_row("openhands", ROW, store, ws, upstream.base_url, offline=False, model=MODEL, key=KEY)
        requests = list(upstream.requests)
    row_seconds = time.monotonic() - row_started
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert result.reply == REPLY
    assert score(ws) == 1.0  # scored from the edit the real binary made
    assert git(ws, "status", "--porcelain") == " M greet.py\n"  # its settings and conversations stay in scratch
    # Every upstream request came from the gateway, with the provider key; the probe never arrived.
    assert {r["path"] for r in requests} == {"/v1/chat/completions"}
    assert {r["headers"].get("authorization") for r in requests} == {f"Bearer {KEY}"}
    assert TASK in json.dumps(requests[0]["json"]["messages"])
    last = tool_results(requests[-1])
    assert "REACHED" not in last["call_probe"] and "Connection refused" in last["call_probe"]
    assert "exit code 1" in last["call_probe"]
    assert "has been edited" in last["call_edit"]

    calls = recorder.calls(ROW)
    assert len(calls) == len(requests) == 3 and [c.source for c in calls] == ["upstream"] * 3
    assert {(c.api, c.model) for c in calls} == {("chat", "gpt-4o")}
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (9300, 112)  # gateway-measured
    assert result.usage.cost_usd == pytest.approx(sum(c.cost_usd or 0.0 for c in calls))
    assert KEY not in json.dumps([c.request for c in calls])
    # The trajectory, read from OpenHands' own JSON events: the task, the blocked probe, the edit, the reply.
    note, *events = result.trajectory
    assert note.data["agent"] == "openhands" and note.data["version"] == "1.16.0"
    assert note.data["gateway"]["calls"] == 3
    assert note.data["self_reported_usage"]["prompt_tokens"] == 9300  # its own count agrees here
    messages = [(e.data["role"], e.data["content"]) for e in events if e.kind == "message"]
    assert messages[0][0] == "user" and TASK in messages[0][1]
    assert ("assistant", "Checking the network.") in messages and ("assistant", "Editing greet.py.") in messages
    commands = [e.data for e in events if e.kind == "command"]
    assert len(commands) == 1 and commands[0]["exit_code"] == 1 and "REACHED" not in commands[0]["output"]
    edits = [e.data for e in events if e.kind == "file_edit"]
    assert [(e["path"], e["command"]) for e in edits] == [(str(ws / "greet.py"), "str_replace")]
    assert events[-1].kind == "reply" and events[-1].data["content"] == REPLY
    atif = steps_of(result.to_dict()["trajectory"])  # as `reqbench export --format atif` writes it
    assert [c["function_name"] for step in atif for c in step.get("tool_calls", [])] == ["bash", "edit_file"]

    ws2 = make_workspace(tmp_path / "ws2")
    replayed = replays_offline("openhands", ROW, store, recorder, ws, ws2, upstream_script(1, ws2), live_calls=3,
                               model=MODEL, key=KEY)
    assert (replayed.usage.prompt_tokens, replayed.usage.completion_tokens) == (9300, 112)
    print(f"openhands row {row_seconds:.1f}s live; live + offline replay in {time.monotonic() - started:.1f}s")


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_real_openhands_stopped_by_the_gateway_budget_is_a_scored_budget_failure(tmp_path: Path) -> None:
    """The row's budget allows one model call: the gateway refuses the second (HTTP 400, which OpenHands
    does not retry), OpenHands ends its conversation in error, and the row is ``budget exhausted``."""
    if versions.cached_binary("openhands") is None and versions.find_python("3.12") is None:
        pytest.skip("openhands needs Python 3.12 and none was found (set REQBENCH_PYTHON_3_12)")
    installed("openhands")
    store, recorder = new_store(tmp_path / "run")
    ws = make_workspace(tmp_path / "ws")
    with ScriptedOpenAI(upstream_script(0, ws)) as upstream:
        upstream.script = upstream_script(upstream.port, ws)
        result = run_row("openhands", ROW, store, ws, upstream.base_url, offline=False, model=MODEL, key=KEY,
                         budget=Budget(wall_seconds=300, max_model_calls=1))
        assert len(upstream.requests) == 1
    assert result.status is AgentStatus.TIMEOUT and "budget exhausted" in result.detail, result.detail
    assert [(c.source, c.status) for c in recorder.calls(ROW)] == [("upstream", 200), ("refused", 400)]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (3000, 40)
    assert score(ws) == 0.0 and git(ws, "status", "--porcelain") == ""
    errors = [e.data for e in result.trajectory if e.kind == "note" and e.data.get("tool") == "openhands"]
    assert [e["error"] for e in errors] == ["LLMBadRequestError"] and "budget" in errors[0]["detail"]


TURNS = [("Make greet.py print Goodbye.", "Hello", "Goodbye"), ("Now make it print Farewell.", "Goodbye", "Farewell")]


def session_script(ws: Path) -> Any:
    """Each turn: one ``str_replace`` from the previous word to the turn's word, then ``finish``."""
    def script(body: dict[str, Any], index: int) -> Reply:
        messages = body.get("messages") or []
        turn = sum(1 for m in messages if m.get("role") == "user")
        done = sum(1 for m in messages if m.get("role") == "tool") - 2 * (turn - 1)
        _, old, new = TURNS[min(turn, len(TURNS)) - 1]
        if done == 0:
            step = call(f"call_edit_{turn}", "file_editor", {"command": "str_replace", "path": str(ws / "greet.py"),
                                                             "old_str": f'print("{old}")', "new_str": f'print("{new}")',
                                                             "security_risk": "LOW"})
        else:
            step = call(f"call_finish_{turn}", "finish", {"message": f"greet.py now prints {new}."})
        return Reply(body=completion("", tool_calls=[step], model=body.get("model", "m"), prompt_tokens=1000 * turn,
                                     completion_tokens=10))
    return script


def run_session(store: RunStore, ws: Path, base_url: str, *, offline: bool) -> list[AgentResult]:
    """Both turns as one journey session of a row: one gateway lease, the tool's own conversation resumed."""
    agent = make_agent("openhands", model=MODEL, base_url=base_url, api_key=KEY)
    with activate(store), offline_run(offline), row_scope(SESSION_ROW):
        session = agent.start_session(ws)
        try:
            return [session.send(text, Budget(wall_seconds=300)) for text, _, _ in TURNS]
        finally:
            session.close()


SESSION_ROW = "greet|journey|openhands|0"


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_real_openhands_session_resumes_its_conversation_then_replays_offline(tmp_path: Path) -> None:
    if versions.cached_binary("openhands") is None and versions.find_python("3.12") is None:
        pytest.skip("openhands needs Python 3.12 and none was found (set REQBENCH_PYTHON_3_12)")
    installed("openhands")
    store, recorder = new_store(tmp_path / "run")
    ws = make_workspace(tmp_path / "ws")
    with ScriptedOpenAI(session_script(ws)) as upstream:
        results = run_session(store, ws, upstream.base_url, offline=False)
        requests = [r["json"] for r in upstream.requests]
    assert [r.status for r in results] == [AgentStatus.COMPLETED] * 2, [r.detail for r in results]
    assert [r.reply for r in results] == ["greet.py now prints Goodbye.", "greet.py now prints Farewell."]
    assert (ws / "greet.py").read_text() == 'print("Farewell")\n'
    # The second turn resumed the first turn's conversation: its requests carry the whole history.
    assert [sum(m["role"] == "user" for m in r["messages"]) for r in requests] == [1, 1, 2, 2]
    assert TURNS[0][0] in json.dumps(requests[2]["messages"]) and TURNS[1][0] in json.dumps(requests[2]["messages"])
    assert [(r.usage.prompt_tokens, r.usage.completion_tokens) for r in results] == [(2000, 20), (4000, 20)]
    assert [c.source for c in recorder.calls(SESSION_ROW)] == ["upstream"] * 4  # one lease for the session
    edits = [[e.data["path"] for e in r.trajectory if e.kind == "file_edit"] for r in results]
    assert edits == [[str(ws / "greet.py")]] * 2  # each turn's trajectory holds that turn's events only

    ws2 = make_workspace(tmp_path / "ws2")
    with ScriptedOpenAI(session_script(ws2)) as upstream:
        replayed = run_session(store, ws2, upstream.base_url, offline=True)
        assert upstream.requests == []
    assert [r.status for r in replayed] == [AgentStatus.COMPLETED] * 2, [r.detail for r in replayed]
    assert (ws2 / "greet.py").read_text() == 'print("Farewell")\n'
    assert [c.source for c in recorder.calls(SESSION_ROW)[4:]] == ["replay"] * 4
    print("openhands session turns: live", [round(r.wall_seconds, 1) for r in results],
          "offline", [round(r.wall_seconds, 1) for r in replayed])
