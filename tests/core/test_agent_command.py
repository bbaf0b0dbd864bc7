"""The command agent: templating, outcome mapping, reply, usage hook, sandboxing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget, Usage
from reqbench.core.agents.command import CommandAgent, make_command
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.sandbox import available_isolation


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "my ws"
    ws.mkdir()
    (ws / "INSTRUCTIONS.md").write_text("make it 42\n")
    return ws


def inputs(ws: Path) -> AgentInputs:
    return AgentInputs(files={"instructions": ws / "INSTRUCTIONS.md", "task": Path("TASK.md")},
                       prompt="say 'hi' & exit")


AGENT_SCRIPT = """
import sys, pathlib
ws, instructions, prompt = map(pathlib.Path, sys.argv[1:4])
assert instructions.read_text() == "make it 42\\n"
(ws / "answer.txt").write_text("42\\n")
print("usage: 10 in, 5 out")
print("reply:", prompt.read_text())
"""


def test_command_agent_runs_templated_argv_and_replies(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(AGENT_SCRIPT)

    def usage(stdout: str) -> Usage | None:
        return Usage(prompt_tokens=10, completion_tokens=5) if "usage: 10 in" in stdout else None

    agent = CommandAgent("scripted", [sys.executable, str(script), "{workspace}", "{instructions_file}",
                                      "{prompt_file}"], parse_usage=usage)
    result = agent.run(workspace, inputs(workspace), Budget(wall_seconds=60))
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert (workspace / "answer.txt").read_text() == "42\n"
    assert result.reply == "usage: 10 in, 5 out\nreply: say 'hi' & exit"
    assert result.usage.prompt_tokens == 10
    command_event = result.trajectory[0]
    assert command_event.kind == "command" and command_event.data["exit_code"] == 0
    assert "{workspace}" not in command_event.data["command"]


def test_shell_template_quotes_values(workspace: Path) -> None:
    agent = make_command("printf '%s|' {prompt} {task_file}")
    result = agent.run(workspace, inputs(workspace), Budget(wall_seconds=60))
    assert result.reply == f"say 'hi' & exit|{workspace / 'TASK.md'}|"


@pytest.mark.parametrize(("template", "status"), [
    ("exit 3", AgentStatus.ERROR),
    ("sleep 30", AgentStatus.TIMEOUT),
    (["definitely-not-installed-agent"], AgentStatus.ERROR),
])
def test_outcomes(workspace: Path, template: str | list[str], status: AgentStatus) -> None:
    result = make_agent("command", template=template, timeout="1").run(workspace, inputs(workspace),
                                                                       Budget(wall_seconds=60))
    assert result.status is status and result.detail


def test_missing_placeholder_is_input_error_naming_it(workspace: Path) -> None:
    agent = make_command("cat {history_file}")
    with pytest.raises(InputError, match=r"\{history_file\}"):
        agent.run(workspace, inputs(workspace), Budget())


def test_command_template_from_spec_argument_and_options() -> None:
    agent = make_agent("command:echo {prompt}", network="true", env="A=1,B=2")
    assert isinstance(agent, CommandAgent)
    assert agent.argv_template == "echo {prompt}" and agent.network and agent.env == {"A": "1", "B": "2"}
    with pytest.raises(InputError):
        make_agent("command")
    with pytest.raises(InputError):
        make_command("x", env="novalue")


@pytest.mark.skipif(available_isolation() != "bwrap", reason="bubblewrap not usable here")
def test_command_agent_cannot_write_outside_its_workspace(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    result = make_command(f"echo pwned > {outside}; echo ok > inside.txt").run(
        workspace, inputs(workspace), Budget(wall_seconds=60))
    assert result.status is AgentStatus.COMPLETED  # the shell's last command succeeded
    assert not outside.exists() and (workspace / "inside.txt").exists()
