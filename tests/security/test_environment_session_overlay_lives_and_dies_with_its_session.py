"""Threat: what an assistant installs into its environment during a journey session outlives the session
(reaching the next row) or reaches the session's hidden-test runs.

SWE-Journey keeps one container per session; reqbench keeps one overlay of the task environment per session
(`RowContext.session`): a `command` assistant re-run every turn installs a package module in its first turn
and finds it in its second; a check run between the turns does not see it; the next session does not
either.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget
from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.execute.environments import RunEnvironments, attempt_environment
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RunOptions
from tests.security.envbuild import session_environment

SITE = "$(python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')"
TURN = f"""
if [ "$(cat {{prompt_file}})" = install ]; then
  echo 'VALUE = 41' > "{SITE}/installed_by_agent.py" && echo installed
else
  python -c 'import installed_by_agent; print("found", installed_by_agent.VALUE)' 2>&1
fi
"""


class Rerun:
    """A session that re-runs the command agent every turn with the user's message as its prompt."""

    def __init__(self, agent: Any, workspace: Path) -> None:
        self.agent, self.workspace = agent, workspace

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        return self.agent.run(self.workspace, AgentInputs(prompt=user_message), budget)

    def close(self) -> None:
        pass


def _session(built: Any, work: Path, key: str, install: bool = True) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def run() -> None:
        ws = work / f"{key}-ws"
        ws.mkdir()
        row = Row(key, "persona", "command")
        options = RunOptions(agent="command", agent_options={"template": TURN})
        with attempt_environment(RunEnvironments(default=built), row, work / key) as environment:
            ctx = RowContext(options, work / key, row, environment)
            session = ctx.session(ws, rerun=Rerun)
            if install:
                found["first"] = session.send("install", Budget(wall_seconds=120)).result.reply or ""
            probe = Check(name="probe", command="{python} -c 'import installed_by_agent'", timeout_seconds=60)
            found["check"] = run_check(probe, ws)
            found["second"] = session.send("use", Budget(wall_seconds=120)).result.reply or ""
            session.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return found


def test_a_sessions_installs_last_its_turns_and_reach_neither_its_checks_nor_the_next_session(
        require_bwrap: None, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    built = session_environment(tmp_path_factory)
    first = _session(built, tmp_path, "s1")
    if "installed" not in first["first"]:  # no overlays here: the environment was read-only to it
        assert "Read-only file system" in first["first"] or "found" not in first["second"], first
    else:
        assert "found 41" in first["second"], first
    assert first["check"].status is CheckStatus.FAIL  # the check's environment is the pristine one
    second = _session(built, tmp_path, "s2", install=False)
    assert "found" not in second["second"] and "ModuleNotFoundError" in second["second"], second
