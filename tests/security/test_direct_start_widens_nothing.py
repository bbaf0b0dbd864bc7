"""Red-team tests: starting a plain shell string without the shell (`sandbox.direct`) gives an agent nothing
the shell start did not: the same program runs in the same view, so every answer stays out of reach and
a program planted in the agent's own folder is never taken for a trusted one.

Each hostile command line is run as given (started directly where it qualifies) and with a trailing ``;``
(which forces the shell); the outcomes must be the same, and none may show an answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import reqbench
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.direct import direct_argv
from reqbench.core.sandbox.launch import scrubbed_env
from reqbench.core.sandbox.view import host_part

pytestmark = pytest.mark.usefixtures("require_bwrap")

PACKAGE = Path(reqbench.__file__).parent
ANSWER = PACKAGE / "examples" / "specpath" / "durations" / "reference.patch"


@pytest.fixture
def agent_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "bin").mkdir(parents=True)
    planted = ws / "bin" / "python3"  # a "python3" the agent planted in its own folder
    planted.write_text(f"#!/bin/sh\ncat {ANSWER}\necho PLANTED\n")
    planted.chmod(0o755)
    return ws


@pytest.mark.parametrize("command", [
    f"cat {ANSWER}",
    f"ls {PACKAGE}/examples/specpath/durations",
    f"{PACKAGE}/../../.venv/bin/python -c pass",
    "cat /proc/1/environ",
    "find / -name reference.patch",
    f"cp {ANSWER} stolen.patch",
])
def test_hostile_plain_commands_see_no_answer_with_or_without_the_shell(agent_ws: Path, command: str) -> None:
    assert ANSWER.is_file()  # the answer exists on the host
    direct = run_sandboxed(command, agent_ws, timeout=60)
    shell = run_sandboxed(command + ";", agent_ws, timeout=60)
    assert direct.exit_code == shell.exit_code
    for result in (direct, shell):
        assert b"+++ " not in result.stdout and b"reference.patch" not in result.stdout
    assert not (agent_ws / "stolen.patch").exists()


def test_a_program_planted_on_path_in_the_agents_folder_is_never_started_directly(agent_ws: Path) -> None:
    env = scrubbed_env({"PATH": f"{agent_ws}/bin:/usr/bin:/bin"}, agent_ws, agent_ws, "m")
    host = host_part(env["PATH"])
    assert direct_argv("python3 -c pass", env, agent_ws, host, [agent_ws]) is None
    ran = run_sandboxed("python3 -c pass", agent_ws, timeout=60, env={"PATH": env["PATH"]})
    # the shell runs the agent's own program, as it always did, and it still cannot read the answer
    assert b"PLANTED" in ran.stdout and b"+++ " not in ran.stdout
