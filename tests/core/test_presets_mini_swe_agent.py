"""mini-swe-agent from PyPI, really run through its preset against a scripted loopback model.

The tool is installed into a test-only virtualenv (``.venv-integration/`` beside the repo, or
``$REQBENCH_INTEGRATION_VENV``) on first use. The loopback server serves a two-step trajectory in the
tool-call format mini-swe-agent v2 speaks: one ``bash`` call that edits a file, then the submit command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.registry import make_agent
from tests.support.scripted_openai import ScriptedOpenAI, bash_tool_call

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

REPO = Path(__file__).resolve().parents[2]
MINI_VERSION = "2.4.6"


def mini_binary() -> Path:
    venv = Path(os.environ.get("REQBENCH_INTEGRATION_VENV") or REPO / ".venv-integration")
    mini = venv / "bin" / "mini"
    if not mini.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                        f"mini-swe-agent=={MINI_VERSION}"], check=True, timeout=1700)
    return mini


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_mini_swe_agent_edits_the_workspace_through_the_loopback_model(tmp_path: Path) -> None:
    mini = mini_binary()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text('print("Hello")\n')
    git(ws, "init", "-q")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "base")
    script = [bash_tool_call("sed -i 's/Hello/Goodbye/' greet.py", "call_edit", prompt_tokens=900,
                             completion_tokens=40),
              bash_tool_call("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "call_submit", prompt_tokens=950,
                             completion_tokens=12)]
    with ScriptedOpenAI(script) as srv:
        agent = make_agent("mini-swe-agent", model="openai/scripted", base_url=srv.base_url,
                           api_key="sk-loopback", binary=str(mini))
        result = agent.run(ws, AgentInputs(prompt="Make the greeting say Goodbye."), Budget(wall_seconds=600))
        sent = srv.chat_requests
        auth = srv.requests[0]["headers"].get("authorization")
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert git(ws, "diff").splitlines()[-2:] == ['-print("Hello")', '+print("Goodbye")']
    assert git(ws, "status", "--porcelain") == " M greet.py\n"  # no config/trajectory files leaked
    # What the real tool sent: our task, the bash tool, our key, the model without its provider prefix.
    assert len(sent) == 2 and auth == "Bearer sk-loopback"
    assert sent[0]["model"] == "scripted"
    assert "Make the greeting say Goodbye." in sent[0]["messages"][1]["content"]
    assert [t["function"]["name"] for t in sent[0]["tools"]] == ["bash"]
    observation = sent[1]["messages"][-1]
    assert observation["role"] == "tool" and '"returncode": 0' in observation["content"]
    # The recorded trajectory, read back from the tool's own trajectory file.
    commands = [(e.data["command"], e.data["exit_code"]) for e in result.trajectory if e.kind == "command"]
    assert commands[0] == ("sed -i 's/Hello/Goodbye/' greet.py", 0)
    assert commands[1][0] == "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    # first the gateway's note (version, calls measured by the gateway), then the tool's own trajectory
    assert [e.kind for e in result.trajectory] == ["note", "message", "command", "message", "command", "reply"]
    assert result.trajectory[0].data["gateway"]["calls"] == 2
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (1850, 52)  # measured by the gateway
