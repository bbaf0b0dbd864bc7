"""The built-in llm agent, driven by scripted replies from a loopback server, in a real git workspace."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget, Session
from reqbench.core.agents.llm_agent import make_llm_agent
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.llm.pricing import Price
from reqbench.core.sandbox import available_isolation
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text('print("Hello")\n')
    (ws / "TASK.md").write_text("Make the greeting say Goodbye.\n")
    git(ws, "init", "-q")
    git(ws, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git(ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    return ws


def bash(cmd: str) -> Reply:
    return reply(f"THOUGHT: next step.\n```bash\n{cmd}\n```")


def agent_for(srv: ScriptedOpenAI, **opts: object):
    return make_agent("llm", model="openai/scripted", base_url=srv.base_url, api_key="k",
                      sleep=lambda s: None, **opts)


def test_llm_agent_edits_a_file_through_shell_commands_and_replies(workspace: Path, tmp_path: Path) -> None:
    script = [bash("cat greet.py"), bash("sed -i 's/Hello/Goodbye/' greet.py"),
              reply("Two at once:\n```bash\nls\n```\n```bash\nls\n```"),
              reply("Done.\n```reply\nThe greeting now says Goodbye.\n```")]
    traj_file = tmp_path / "traj.json"
    with ScriptedOpenAI(script) as srv:
        agent = agent_for(srv, trajectory_path=str(traj_file))
        inputs = AgentInputs(files={"task": workspace / "TASK.md"}, prompt="Solve the task.")
        result = agent.run(workspace, inputs, Budget(wall_seconds=60, max_steps=10))
        sent = srv.chat_requests
    assert result.status is AgentStatus.COMPLETED
    assert result.reply == "The greeting now says Goodbye."
    assert git(workspace, "diff").splitlines()[-2:] == ['-print("Hello")', '+print("Goodbye")']
    # The task file is inlined in the first user message; observations come back as user messages.
    assert "Make the greeting say Goodbye." in sent[0]["messages"][1]["content"]
    assert sent[0]["model"] == "scripted" and sent[0]["temperature"] == 0
    assert sent[1]["messages"][-1]["content"].startswith("exit code: 0\n<output>\nprint(\"Hello\")")
    assert "exactly one action" in sent[3]["messages"][-1]["content"]
    kinds = [e.kind for e in result.trajectory]
    assert kinds == ["message", "message", "command", "message", "command", "message", "note", "message",
                     "reply"]
    commands = [e.data for e in result.trajectory if e.kind == "command"]
    assert [(c["command"], c["exit_code"]) for c in commands] == [
        ("cat greet.py", 0), ("sed -i 's/Hello/Goodbye/' greet.py", 0)]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (40, 20)
    saved = json.loads(traj_file.read_text())
    assert [e["kind"] for e in saved["events"]] == kinds and saved["model"] == "openai/scripted"


def test_step_budget_ends_the_run_as_timeout(workspace: Path) -> None:
    with ScriptedOpenAI(lambda body, i: bash("true")) as srv:
        result = agent_for(srv).run(workspace, AgentInputs(prompt="loop"), Budget(max_steps=3))
        assert len(srv.requests) == 3
    assert result.status is AgentStatus.TIMEOUT and "step budget" in result.detail


def test_cost_budget_ends_the_run_as_timeout(workspace: Path) -> None:
    # Each call: 10 prompt tokens at $1M per 1M tokens = $10; the $15 budget allows two calls.
    with ScriptedOpenAI(lambda body, i: bash("true")) as srv:
        agent = agent_for(srv, prices={"scripted": Price(1_000_000.0, 0.0)})
        result = agent.run(workspace, AgentInputs(prompt="spend"), Budget(max_cost_usd=15.0))
        assert len(srv.requests) == 2
    assert result.status is AgentStatus.TIMEOUT and result.usage.cost_usd == pytest.approx(20.0)


def test_provider_failure_after_retries_is_provider_error_and_trajectory_is_kept(workspace: Path,
                                                                                   tmp_path: Path) -> None:
    traj_file = tmp_path / "t.json"
    with ScriptedOpenAI([bash("echo hi > note.txt")] + [Reply(status=502)] * 3) as srv:
        result = agent_for(srv, trajectory_path=str(traj_file)).run(workspace, AgentInputs(prompt="x"),
                                                                    Budget())
    assert result.status is AgentStatus.PROVIDER_ERROR and "502" in result.detail
    saved = json.loads(traj_file.read_text())["events"]
    assert [e["kind"] for e in saved] == ["message", "message", "command"]
    assert (workspace / "note.txt").read_text() == "hi\n"


def test_command_timeout_is_fed_back_and_the_loop_continues(workspace: Path) -> None:
    script = [bash("sleep 5"), reply("```reply\ngave up waiting\n```")]
    with ScriptedOpenAI(script) as srv:
        result = agent_for(srv, command_timeout=0.5).run(workspace, AgentInputs(prompt="x"), Budget())
        feedback = srv.chat_requests[1]["messages"][-1]["content"]
    assert result.status is AgentStatus.COMPLETED
    assert "timed out after 0.5 seconds" in feedback
    assert [e.data.get("timed_out") for e in result.trajectory if e.kind == "command"] == [True]


@pytest.mark.skipif(available_isolation() == "none", reason="network namespaces not permitted here")
def test_agent_commands_cannot_reach_the_network(workspace: Path) -> None:
    with ScriptedOpenAI([]) as target:
        port = target.port
        probe = (f"python3 -c \"import socket; s=socket.socket(); s.settimeout(2); "
                 f"print('rc', s.connect_ex(('127.0.0.1', {port})))\"")
        with ScriptedOpenAI([bash(probe), reply("```reply\nok\n```")]) as srv:
            agent_for(srv).run(workspace, AgentInputs(prompt="x"), Budget())
            obs = srv.chat_requests[1]["messages"][-1]["content"]
        assert target.requests == []
    assert "rc 0" not in obs and "rc " in obs


def test_session_keeps_history_across_user_turns(workspace: Path) -> None:
    script = [reply("```reply\nWhich file?\n```"), bash("echo x > a.txt"), reply("```reply\ndone\n```")]
    with ScriptedOpenAI(script) as srv:
        agent = agent_for(srv)
        session = agent.start_session(workspace)
        assert isinstance(session, Session)
        first = session.send("Create a file.", Budget())
        second = session.send("a.txt please.", Budget())
        session.close()
        last = srv.chat_requests[2]["messages"]
    assert (first.reply, second.reply) == ("Which file?", "done")
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last[1]["content"] == "Create a file." and last[3]["content"] == "a.txt please."
    assert [e.kind for e in second.trajectory][0] == "message" and second.trajectory[0].data["content"] \
        == "a.txt please."
    assert (workspace / "a.txt").exists()


def test_llm_agent_requires_a_model() -> None:
    with pytest.raises(InputError, match="needs a model"):
        make_llm_agent(base_url="http://127.0.0.1:9/v1")


def test_model_may_come_from_the_agent_spec_and_options_are_checked() -> None:
    agent = make_agent("llm:openai/x", base_url="http://127.0.0.1:9/v1", temperature="0.5")
    assert agent.model == "openai/x" and agent.temperature == 0.5
    with pytest.raises(InputError, match="unknown option .bogus. for agent .llm."):
        make_agent("llm:openai/x", base_url="http://127.0.0.1:9/v1", bogus=1)


def test_repeats_are_fresh_draws_but_a_rerun_of_one_repeat_is_replayed(workspace: Path) -> None:
    with ScriptedOpenAI(lambda body, i: reply(f"```reply\ndraw {i}\n```")) as srv:
        agent = agent_for(srv)
        replies = [agent.run(workspace, AgentInputs(prompt="pick", context={"repeat": r}), Budget()).reply
                   for r in (0, 1, 0)]
        assert len(srv.requests) == 2
    assert replies == ["draw 0", "draw 1", "draw 0"]


def test_diagnostic_stage_never_runs_commands(workspace: Path) -> None:
    script = [bash("rm greet.py"), reply('```reply\n{"decision": "ACT"}\n```')]
    with ScriptedOpenAI(script) as srv:
        agent = agent_for(srv, stage="diagnostic")
        result = agent.run(workspace, AgentInputs(prompt="Diagnose."), Budget())
        sent = srv.chat_requests
    assert (workspace / "greet.py").exists()
    assert "no tools" in sent[0]["messages"][0]["content"]
    assert "allows no commands" in sent[1]["messages"][-1]["content"]
    assert result.status is AgentStatus.COMPLETED and result.reply == '{"decision": "ACT"}'
    assert [e.kind for e in result.trajectory if e.kind == "command"] == []


def test_files_outside_the_allow_list_stay_invisible_to_agent_commands(workspace: Path, tmp_path: Path) -> None:
    from reqbench.core.sandbox import available_isolation

    if available_isolation() != "bwrap":
        pytest.skip("hiding folders needs bubblewrap")
    # Outside /tmp (which the sandbox replaces anyway): invisible because nothing binds it, hidden or not.
    suite = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="reqbench-suite-"))
    try:
        (suite / "gold.txt").write_text("the hidden answer\n")
        script = [bash(f"cat {suite}/gold.txt"), reply("```reply\nok\n```")] * 2
        with ScriptedOpenAI(script) as srv:
            agent_for(srv).run(workspace, AgentInputs(prompt="x"), Budget())
            agent_for(srv).run(workspace, AgentInputs(prompt="y", context={"hide": [str(suite)]}), Budget())
            shown, hidden = (srv.chat_requests[i]["messages"][-1]["content"] for i in (1, 3))
    finally:
        shutil.rmtree(suite)
    assert "the hidden answer" not in shown and "exit code: 1" in shown
    assert "the hidden answer" not in hidden and "exit code: 1" in hidden
