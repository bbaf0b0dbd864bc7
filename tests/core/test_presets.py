"""CLI-agent presets: exact command lines, output parsing, status mapping, sessions, the model gateway.

The tools themselves (claude, codex, openhands, aider) need a model provider, so these tests run real
child processes of stand-in executables that record their argv/stdin/env, optionally call their model
through the gateway they were pointed at (``FAKE_CALLS``), and print output in each tool's documented
machine-readable format. mini-swe-agent runs for real in test_presets_mini_swe_agent, Claude Code in
test_presets_claude_code (both integration).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.presets import CLAUDE_FLAGS, CODEX_FLAGS, codex_provider
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.sandbox.bridge import BRIDGE_PORT
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body, messages_body, responses_body

KEY = "sk-provider-secret-77"
GATEWAY = f"http://127.0.0.1:{BRIDGE_PORT}"

FAKE = r'''
import json, os, sys, time
from pathlib import Path
KEEP = ("CLAUDE", "CODEX", "OPENAI", "ANTHROPIC", "LLM_", "FAKE")
record = {"argv": sys.argv[1:], "cwd": os.getcwd(), "stdin": "" if sys.stdin.isatty() else sys.stdin.read(),
          "env": {k: v for k, v in os.environ.items() if k.startswith(KEEP)}}
rec = Path(os.environ["FAKE_RECORD"])
runs = json.loads(rec.read_text()) if rec.exists() else []
rec.write_text(json.dumps(runs + [record]))
import urllib.request
for _ in range(int(os.environ.get("FAKE_CALLS", "0"))):
    if "ANTHROPIC_BASE_URL" in os.environ:
        url, key = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", os.environ["ANTHROPIC_API_KEY"]
    elif "--openai-api-base" in sys.argv:
        url, key = sys.argv[sys.argv.index("--openai-api-base") + 1] + "/chat/completions", os.environ["OPENAI_API_KEY"]
    else:
        base = [a for a in sys.argv if a.startswith("model_providers.reqbench.base_url=")][0]
        url, key = base.split("=", 1)[1].strip('"') + "/responses", os.environ["REQBENCH_GATEWAY_TOKEN"]
    model = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else os.environ.get("LLM_MODEL", "m")
    req = urllib.request.Request(url, data=json.dumps({"model": model, "messages": []}).encode(),
                                 headers={"Authorization": "Bearer " + key, "content-type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=10).read()
    except urllib.error.HTTPError as exc:
        print(exc.read().decode(), file=sys.stderr)
mode = os.environ.get("FAKE_MODE", "ok")
if mode == "sleep":
    time.sleep(30)
Path("greet.py").write_text('print("Goodbye")\n')
if os.environ.get("FAKE_STATE"):  # OpenHands' persisted conversation state
    conv = Path(os.environ["OPENHANDS_PERSISTENCE_DIR"], "conversations", "c" * 32)
    conv.mkdir(parents=True)
    (conv / "base_state.json").write_text(os.environ["FAKE_STATE"])
print(os.environ["FAKE_OUTPUT"].replace("{n}", str(len(runs) + 1)))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
'''


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text('print("Hello")\n')
    (ws / "TASK.md").write_text("Say Goodbye.\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    return ws


def fake_tool(tmp_path: Path, name: str) -> Path:
    exe = tmp_path / "bin" / name
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(f"#!{sys.executable}\n{FAKE}")
    exe.chmod(0o755)
    return exe


def preset(tmp_path: Path, name: str, binary: str, output: str, **opts: object):
    rec = tmp_path / "rec"
    rec.mkdir(exist_ok=True)
    env = {"FAKE_RECORD": str(rec / "record.json"), "FAKE_OUTPUT": output}
    env.update(opts.pop("env", {}))  # type: ignore[arg-type]
    return make_agent(name, binary=str(fake_tool(tmp_path, binary)), env=env, writable=[str(rec)], **opts)


def records(tmp_path: Path) -> list[dict]:
    return json.loads((tmp_path / "rec" / "record.json").read_text())


CLAUDE_OK = json.dumps({"type": "result", "subtype": "success", "is_error": False, "num_turns": 4,
                        "result": "Changed the greeting.", "session_id": "sess-{n}", "total_cost_usd": 0.0421,
                        "usage": {"input_tokens": 120, "cache_creation_input_tokens": 30,
                                  "cache_read_input_tokens": 50, "output_tokens": 75}})


def test_claude_coding_runs_table_14_switches_and_reports_gateway_usage(workspace: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"claude-x": {"input_per_1m": 100.0, "output_per_1m": 200.0}}))
    monkeypatch.setenv("REQBENCH_PRICES", str(prices))
    body = messages_body("ok", input_tokens=100, output_tokens=40, model="claude-x")
    with ScriptedOpenAI(lambda req, i: Reply(body=body)) as srv:
        agent = preset(tmp_path, "claude-code", "claude", CLAUDE_OK, model="claude-x", base_url=srv.base_url,
                       api_key=KEY, env={"FAKE_CALLS": "2"})
        inputs = AgentInputs(files={"task": workspace / "TASK.md"}, prompt="Do the task.")
        result = agent.run(workspace, inputs, Budget(wall_seconds=60))
        assert [r["headers"]["x-api-key"] for r in srv.requests] == [KEY, KEY]
    (rec,) = records(tmp_path)
    assert rec["argv"] == ["-p", "--output-format", "json", "--restricted", "--no-session-persistence",
                           "--permission-mode", "dontAsk",
                           "--tools", "Read,Edit,Write,Glob,Grep,PowerShell,Bash",
                           "--allowedTools", "Read,Edit,Write,Glob,Grep,PowerShell,Bash",
                           "--disallowedTools", "mcp__*,WebFetch,WebSearch", "--strict-mcp-config",
                           "--no-chrome", "--model", "claude-x"]
    assert rec["cwd"] == str(workspace) and "Say Goodbye." in rec["stdin"]
    assert result.status is AgentStatus.COMPLETED and result.reply == "Changed the greeting."
    # tokens and cost as the gateway measured them (2 calls), not the tool's own report
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (200, 80)
    assert result.usage.cost_usd == pytest.approx((200 * 100 + 80 * 200) / 1e6)
    note = result.trajectory[0]
    assert note.kind == "note" and note.data["self_reported_usage"]["cost_usd"] == pytest.approx(0.0421)
    assert note.data["gateway"]["calls"] == 2 and note.data["version"]
    # the tool was given the relay and a row token; the provider key never entered its environment
    assert rec["env"]["ANTHROPIC_BASE_URL"] == GATEWAY
    assert rec["env"]["ANTHROPIC_API_KEY"].startswith("rbgw-") and KEY not in json.dumps(rec)
    # Only the agent's edit is in the workspace: the prompt file lives in a scratch dir elsewhere.
    status = subprocess.run(["git", "status", "--porcelain"], cwd=workspace, capture_output=True, text=True)
    assert sorted(status.stdout.split()) == ["??", "??", "TASK.md", "greet.py"]


def test_claude_diagnostic_stage_has_no_tools(workspace: Path, tmp_path: Path) -> None:
    agent = preset(tmp_path, "claude-code", "claude", CLAUDE_OK, stage="diagnostic")
    agent.run(workspace, AgentInputs(prompt="Diagnose."), Budget(wall_seconds=60))
    argv = records(tmp_path)[0]["argv"]
    assert argv[3:] == CLAUDE_FLAGS["diagnostic"]
    assert argv[argv.index("--tools") + 1] == "" and "Bash" not in " ".join(argv)


def test_claude_session_resumes_its_own_session(workspace: Path, tmp_path: Path) -> None:
    agent = preset(tmp_path, "claude-code", "claude", CLAUDE_OK)
    session = agent.start_session(workspace)
    first = session.send("Change it.", Budget(wall_seconds=60))
    second = session.send("Now explain.", Budget(wall_seconds=60))
    session.close()
    a, b = records(tmp_path)
    assert "--resume" not in a["argv"] and "--no-session-persistence" not in a["argv"]
    assert b["argv"][b["argv"].index("--resume") + 1] == "sess-1"
    assert a["env"]["CLAUDE_CONFIG_DIR"] == b["env"]["CLAUDE_CONFIG_DIR"]
    assert (a["stdin"], b["stdin"]) == ("Change it.", "Now explain.")
    assert first.status is second.status is AgentStatus.COMPLETED


@pytest.mark.parametrize(("payload", "status"), [
    ({"subtype": "error_max_turns", "is_error": True}, AgentStatus.TIMEOUT),
    ({"subtype": "success", "is_error": True, "result": "API Error: 529 overloaded"},
     AgentStatus.PROVIDER_ERROR),
    ({"subtype": "error_during_execution", "is_error": True, "result": "tool crashed"},
     AgentStatus.ERROR),
])
def test_claude_result_subtypes_map_to_statuses(workspace: Path, tmp_path: Path, payload: dict,
                                                status: AgentStatus) -> None:
    out = json.dumps({"type": "result", "session_id": "s", **payload})
    result = preset(tmp_path, "claude-code", "claude", out).run(workspace, AgentInputs(prompt="x"),
                                                                Budget(wall_seconds=60))
    assert result.status is status


CODEX_OK = "\n".join(json.dumps(e) for e in [
    {"type": "thread.started", "thread_id": "th-{n}"},
    {"type": "item.completed", "item": {"id": "i1", "type": "command_execution", "command": "cat greet.py",
                                        "exit_code": 0, "aggregated_output": "print(\"Hello\")\n"}},
    {"type": "item.completed", "item": {"id": "i2", "type": "file_change",
                                        "changes": [{"path": "greet.py", "kind": "update"}]}},
    {"type": "item.completed", "item": {"id": "i3", "type": "agent_message", "text": "Done."}},
    {"type": "turn.completed", "usage": {"input_tokens": 900, "cached_input_tokens": 100,
                                         "output_tokens": 60}},
])


def test_codex_coding_runs_table_14_switches_and_reads_jsonl(workspace: Path, tmp_path: Path) -> None:
    agent = preset(tmp_path, "codex", "codex", CODEX_OK, model="gpt-x",
                   extra_args="-c model_reasoning_effort=high")
    result = agent.run(workspace, AgentInputs(prompt="Do it."), Budget(wall_seconds=60))
    argv = records(tmp_path)[0]["argv"]
    assert argv == ["exec", "-c", "model_reasoning_effort=high", "--json", *CODEX_FLAGS["coding"],
                    *codex_provider(GATEWAY), "-C", str(workspace), "--model", "gpt-x", "-"]
    assert "--sandbox" in argv and argv[argv.index("--sandbox") + 1] == "danger-full-access"
    assert result.status is AgentStatus.COMPLETED and result.reply == "Done."
    assert result.trajectory[0].data["self_reported_usage"]["prompt_tokens"] == 900
    assert [e.kind for e in result.trajectory] == ["note", "command", "file_edit", "message", "note", "reply"]
    assert result.trajectory[1].data == {"command": "cat greet.py", "exit_code": 0,
                                         "output": "print(\"Hello\")\n"}


def test_codex_session_resumes_the_thread(workspace: Path, tmp_path: Path) -> None:
    agent = preset(tmp_path, "codex", "codex", CODEX_OK, stage="diagnostic")
    session = agent.start_session(workspace)
    session.send("one", Budget(wall_seconds=60))
    session.send("two", Budget(wall_seconds=60))
    a, b = records(tmp_path)
    assert "--ephemeral" not in a["argv"] and a["argv"][-1] == "-" and "resume" not in a["argv"]
    assert b["argv"][-3:] == ["resume", "th-1", "-"]
    assert b["argv"][b["argv"].index("--sandbox") + 1] == "read-only"


def test_codex_stream_failure_is_a_provider_error(workspace: Path, tmp_path: Path) -> None:
    out = json.dumps({"type": "turn.failed", "error": {"message": "stream error: 503 Service Unavailable"}})
    result = preset(tmp_path, "codex", "codex", out, env={"FAKE_EXIT": "1"}).run(
        workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    assert result.status is AgentStatus.PROVIDER_ERROR and "503" in result.detail


def test_nonzero_exit_without_a_verdict_is_an_error(workspace: Path, tmp_path: Path) -> None:
    result = preset(tmp_path, "codex", "codex", "", env={"FAKE_EXIT": "3"}).run(
        workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    assert result.status is AgentStatus.ERROR and "exit code 3" in result.detail


def test_wall_clock_budget_kills_the_tool_as_timeout(workspace: Path, tmp_path: Path) -> None:
    agent = preset(tmp_path, "aider", "aider", "", env={"FAKE_MODE": "sleep"})
    result = agent.run(workspace, AgentInputs(prompt="x"), Budget(wall_seconds=1.0))
    assert result.status is AgentStatus.TIMEOUT and result.wall_seconds < 10


def test_missing_tool_is_reported_not_crashed(workspace: Path) -> None:
    agent = make_agent("openhands", binary="/nonexistent/openhands", model="openai/m")
    result = agent.run(workspace, AgentInputs(prompt="x"), Budget(wall_seconds=5))
    assert result.status is AgentStatus.ERROR and "not found" in result.detail


def test_aider_command_line_and_token_summary(workspace: Path, tmp_path: Path) -> None:
    out = ("Applied edit to greet.py\nTokens: 2.3k sent, 150 received. Cost: $0.01 message, $0.01 session.\n"
           "Tokens: 1,200 sent, 1.1k cache write, 50 received. Cost: $0.02 message, $0.03 session.")
    agent = preset(tmp_path, "aider", "aider", out, model="openai/x", base_url="http://127.0.0.1:1/v1")
    result = agent.run(workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    argv = records(tmp_path)[0]["argv"]
    assert argv[:2] == ["--yes-always", "--no-auto-commits"]
    assert argv[argv.index("--model") + 1] == "openai/x"
    assert argv[argv.index("--openai-api-base") + 1] == f"{GATEWAY}/v1"
    prompt_file = Path(argv[argv.index("--message-file") + 1])
    assert not prompt_file.is_relative_to(workspace)
    assert result.trajectory[0].data["self_reported_usage"] == {"prompt_tokens": 3500, "completion_tokens": 200,
                                                                "cost_usd": pytest.approx(0.03)}
    assert [e.data.get("path") for e in result.trajectory if e.kind == "file_edit"] == ["greet.py"]


def test_aider_rate_limit_is_a_provider_error(workspace: Path, tmp_path: Path) -> None:
    out = "litellm.RateLimitError: RateLimitError: OpenAIException - 429 Too Many Requests"
    result = preset(tmp_path, "aider", "aider", out, env={"FAKE_EXIT": "1"}).run(
        workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    assert result.status is AgentStatus.PROVIDER_ERROR


def test_openhands_gets_llm_settings_from_env_and_reports_cost(workspace: Path, tmp_path: Path) -> None:
    out = "\n".join(json.dumps(e) for e in [
        {"kind": "ActionEvent", "tool_name": "terminal", "tool_call_id": "c1", "thought": [],
         "action": {"command": "ls", "kind": "TerminalAction"}},
        {"kind": "ObservationEvent", "tool_call_id": "c1", "observation": {"content": [], "exit_code": 0}},
        {"kind": "ActionEvent", "tool_name": "file_editor", "tool_call_id": "c2", "thought": [],
         "action": {"command": "str_replace", "path": "greet.py"}},
        {"kind": "ActionEvent", "tool_name": "finish", "tool_call_id": "c3", "thought": [],
         "action": {"message": "All done."}}])
    status = {"id": "c", "execution_status": "finished", "stats": {"usage_to_metrics": {"agent": {
        "accumulated_cost": 0.12, "accumulated_token_usage": {"prompt_tokens": 500, "completion_tokens": 40}}}}}
    agent = preset(tmp_path, "openhands", "openhands", out, model="openai/m", base_url="http://127.0.0.1:1/v1",
                   api_key="k", env={"FAKE_STATE": json.dumps(status)})
    result = agent.run(workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    rec = records(tmp_path)[0]
    assert rec["argv"][:3] == ["--headless", "--json", "--override-with-envs"]
    assert rec["env"]["LLM_MODEL"] == "openai/m" and rec["env"]["LLM_BASE_URL"] == f"{GATEWAY}/v1"
    assert rec["env"]["LLM_API_KEY"].startswith("rbgw-")
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert result.reply == "All done." and result.usage.cost_usd is None  # no call reached the gateway
    assert result.trajectory[0].data["self_reported_usage"]["cost_usd"] == pytest.approx(0.12)
    assert [e.kind for e in result.trajectory] == ["note", "command", "file_edit", "reply"]


def test_openhands_needs_a_model() -> None:
    with pytest.raises(InputError, match="openhands needs --model"):
        make_agent("openhands").run(Path("/nonexistent"), AgentInputs(prompt="x"), Budget(wall_seconds=5))
    with pytest.raises(InputError, match="openhands needs --model"):
        make_agent("openhands").start_session(Path("/nonexistent"))


def test_only_presets_that_can_resume_offer_sessions() -> None:
    assert {name for name in ("claude-code", "codex", "mini-swe-agent", "openhands", "aider")
            if hasattr(make_agent(name), "start_session")} == {"claude-code", "codex", "openhands"}


def test_bad_stage_and_unknown_options_are_user_errors() -> None:
    with pytest.raises(InputError, match="stage"):
        make_agent("codex", stage="review")
    with pytest.raises(InputError, match="unknown option"):
        make_agent("claude-code", sandbox="none")


def test_command_lines_are_printable_with_placeholders() -> None:
    line = make_agent("codex", stage="diagnostic", binary="codex").command_line()
    assert line.startswith("codex exec --json --ephemeral --ignore-user-config --ignore-rules "
                           "--skip-git-repo-check --sandbox read-only -c 'model_provider=\"reqbench\"' ")
    assert "'model_providers.reqbench.base_url=\"{gateway}/v1\"'" in line
    assert line.endswith(" -C '{workspace}' - < {prompt}")
    assert "--tools ''" in make_agent("claude-code", stage="diagnostic").command_line()


def test_options_given_as_cli_strings_are_parsed(tmp_path: Path) -> None:
    agent = make_agent("aider", env="A=1,B=x=y", writable="/a:/b", keep_scratch="yes",
                       extra_args="--foo 'a b'")
    assert agent.extra_env == {"A": "1", "B": "x=y"}
    assert [str(p) for p in agent.writable] == ["/a", "/b"] and agent.keep_scratch is True
    assert agent.extra_args == ["--foo", "a b"]
    with pytest.raises(InputError, match="KEY=VALUE"):
        make_agent("aider", env="novalue")


@pytest.mark.parametrize(("name", "binary", "body"), [("aider", "aider", chat_body("x")),
                                                      ("codex", "codex", responses_body("x")),
                                                      ("claude-code", "claude", messages_body("x"))])
def test_gateway_budget_ends_the_row_as_budget_exhausted(workspace: Path, tmp_path: Path, name: str,
                                                         binary: str, body: dict) -> None:
    with ScriptedOpenAI(lambda req, i: Reply(body=body)) as srv:
        agent = preset(tmp_path, name, binary, "", base_url=srv.base_url, api_key=KEY, env={"FAKE_CALLS": "3"})
        result = agent.run(workspace, AgentInputs(prompt="x"), Budget(wall_seconds=60, max_model_calls=1))
        assert len(srv.requests) == 1
    assert result.status is AgentStatus.TIMEOUT and result.detail.startswith("budget exhausted")
    assert result.trajectory[0].data["gateway"]["refused"] == 2
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (10, 5)


def test_agent_version_spec_selects_the_version() -> None:
    agent = make_agent("claude-code@2.0.1")
    assert agent.version == "2.0.1"
    with pytest.raises(InputError):
        make_agent("reference@1")
