"""Reading the OpenHands CLI 1.x: its ``--json`` event lines and its persisted conversation state.

The events are the shapes OpenHands 1.16 prints (trimmed to the fields that matter, taken from a real
headless run against a scripted model); the state file is written where the CLI writes it. The real
binary itself runs in tests/integration/test_real_openhands.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentStatus
from reqbench.core.agents.openhands_output import parse_openhands

CID = "1de46beaba524af5a02b18586ae4307d"


def text(value: str) -> list[dict[str, Any]]:
    return [{"cache_prompt": False, "type": "text", "text": value}]


def user(task: str) -> dict[str, Any]:
    return {"timestamp": "2026-12-01T03:14:11.000000", "source": "user", "kind": "MessageEvent",
            "llm_message": {"role": "user", "content": text(task)}}


def action(call_id: str, tool: str, thought: str, act: dict[str, Any] | None, args: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-12-01T03:14:12.332613", "source": "agent", "kind": "ActionEvent", "thought": text(thought),
            "action": act, "tool_name": tool, "tool_call_id": call_id,
            "tool_call": {"id": call_id, "name": tool, "arguments": json.dumps(args)}}


def observation(call_id: str, tool: str, output: str, **extra: Any) -> dict[str, Any]:
    return {"source": "environment", "kind": "ObservationEvent", "tool_name": tool, "tool_call_id": call_id,
            "observation": {"content": text(output), "is_error": False, **extra}}


def conversation_error(code: str, detail: str) -> dict[str, Any]:
    return {"source": "environment", "kind": "ConversationErrorEvent", "code": code, "detail": detail}


def stdout(*events: dict[str, Any], cid: str | None = CID) -> str:
    lines = ["Initializing agent...", *(json.dumps(e) for e in events), "Agent finished", "Goodbye! 👋"]
    lines += [f"Conversation ID: {cid}"] if cid else []
    return "\n".join(lines) + "\n"


def state(persistence: Path, status: str, cid: str = CID, **stats: Any) -> None:
    folder = persistence / "conversations" / cid
    folder.mkdir(parents=True)
    metrics = {name: {"accumulated_cost": cost, "accumulated_token_usage": {"prompt_tokens": p, "completion_tokens": c}}
               for name, (p, c, cost) in stats.items()}
    (folder / "base_state.json").write_text(json.dumps({
        "id": "1de46bea-ba52-4af5-a02b-18586ae4307d", "execution_status": status,
        "stats": {"usage_to_metrics": metrics}}))


RUN = [
    user("Make greet.py print Goodbye."),
    action("call_probe", "terminal", "Checking.", {"command": "ls", "kind": "TerminalAction"}, {"command": "ls"}),
    observation("call_probe", "terminal", "greet.py", exit_code=0, metadata={"exit_code": 0}),
    action("call_edit", "file_editor", "Editing greet.py.",
           {"command": "str_replace", "path": "/ws/greet.py", "kind": "FileEditorAction"}, {}),
    observation("call_edit", "file_editor", "The file /ws/greet.py has been edited."),
    action("call_finish", "finish", "", {"message": "Done: Goodbye.", "kind": "FinishAction"}, {}),
    observation("call_finish", "finish", "Done: Goodbye."),
]


def test_a_finished_run_becomes_the_trajectory_reply_and_self_report(tmp_path: Path) -> None:
    state(tmp_path, "finished", agent=(3000, 40, 0.0075), condenser=(200, 10, 0.0005))
    out = parse_openhands(stdout(*RUN), tmp_path)
    assert out.status is AgentStatus.COMPLETED
    assert [(e.kind, e.data.get("role") or e.data.get("command")) for e in out.events] == [
        ("message", "user"), ("message", "assistant"), ("command", "ls"), ("message", "assistant"),
        ("file_edit", "str_replace"), ("reply", None)]
    command, edit = out.events[2].data, out.events[4].data
    assert (command["exit_code"], command["output"]) == (0, "greet.py")
    assert (edit["path"], edit["output"]) == ("/ws/greet.py", "The file /ws/greet.py has been edited.")
    assert out.reply == "Done: Goodbye." and out.events[-1].data["content"] == "Done: Goodbye."
    assert out.session_id == "1de46bea-ba52-4af5-a02b-18586ae4307d"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (3200, 50)
    assert out.usage.cost_usd is not None and abs(out.usage.cost_usd - 0.008) < 1e-9
    assert out.events[1].ts == out.events[2].ts != out.events[0].ts  # the events' own times


def test_a_refused_tool_call_is_kept_with_the_sdk_error(tmp_path: Path) -> None:
    state(tmp_path, "finished")
    refused = {"source": "agent", "kind": "AgentErrorEvent", "tool_name": "file_editor", "tool_call_id": "call_1",
               "error": "Failed to provide security_risk field in tool 'file_editor'."}
    out = parse_openhands(stdout(user("x"), action("call_1", "file_editor", "", None,
                                                    {"command": "view", "path": "/ws"}), refused), tmp_path)
    edit = [e.data for e in out.events if e.kind == "file_edit"]
    assert edit == [{"path": "/ws", "command": "view", "is_error": True,
                     "output": "Failed to provide security_risk field in tool 'file_editor'."}]


def test_statuses_come_from_the_conversation_not_the_exit_code(tmp_path: Path) -> None:
    cases = [
        ("error", conversation_error("MaxIterationsReached", "Agent reached maximum iterations limit (500)."),
         AgentStatus.TIMEOUT),
        ("error", conversation_error("LLMRateLimitError", "429 Too Many Requests"), AgentStatus.PROVIDER_ERROR),
        ("error", conversation_error("LLMServiceUnavailableError", "503"), AgentStatus.PROVIDER_ERROR),
        ("error", conversation_error("LLMBadRequestError", "reqbench gateway: budget exhausted"), AgentStatus.ERROR),
        ("stuck", None, AgentStatus.ERROR),
        ("paused", None, AgentStatus.ERROR),
    ]
    for i, (status, error, expected) in enumerate(cases):
        persistence = tmp_path / str(i)
        state(persistence, status)
        out = parse_openhands(stdout(user("x"), *([error] if error else [])), persistence)
        assert out.status is expected, (status, error)
        if error:
            assert out.detail.startswith(f"openhands: {error['code']}: ")
    assert "stuck-loop" in parse_openhands(stdout(), tmp_path / "4").detail


def test_no_conversation_at_all_is_an_error_naming_the_last_line(tmp_path: Path) -> None:
    printed = "Error: Missing required environment variable(s): LLM_MODEL\n"
    out = parse_openhands(printed, tmp_path)
    assert out.status is AgentStatus.ERROR
    assert out.detail == "openhands ran no conversation: Error: Missing required environment variable(s): LLM_MODEL"


def test_without_the_closing_id_line_the_only_conversation_is_read(tmp_path: Path) -> None:
    state(tmp_path, "finished", agent=(10, 2, 0.0))
    out = parse_openhands(stdout(*RUN, cid=None), tmp_path)
    assert out.status is AgentStatus.COMPLETED and out.usage.prompt_tokens == 10
    state(tmp_path, "error", cid="0" * 32)  # two conversations and no id: neither is guessed
    assert parse_openhands(stdout(*RUN, cid=None), tmp_path).status is AgentStatus.ERROR
