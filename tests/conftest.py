"""Session-wide guard: no agent step may leave its scratch on the host (`core.sandbox.scratch`).

On the controlling process (or the only one, without xdist) the host's temporary folder is listed at the
start and at the end of the session; a new agent-scratch entry (``reqbench-sbx-*``, ``reqbench-agent-*``,
a preset's ``reqbench-*-session-*`` or ``reqbench-<preset>-*``) fails the session, naming it.

Every test process also lists the test plugin's entries (``REQBENCH_SHOW_TEST_FIXTURES``, `core.registry`).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

AGENT_SCRATCH = re.compile(r"reqbench-(sbx|agent|claude-code|codex|aider|openhands|mini-swe-agent)-|"
                           r"reqbench-.*-session-")
_BEFORE = pytest.StashKey[set[str]]()

# The test plugin (tests/plugin, a test fixture) is listed in every listing of the tests' processes; a user's
# `reqbench --help`, `reqbench agents`, `reqbench schema` and `reqbench demo` leave it out.
os.environ["REQBENCH_SHOW_TEST_FIXTURES"] = "1"


def agent_leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("reqbench-*") if AGENT_SCRATCH.match(p.name)}


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _controller(session.config):
        session.config.stash[_BEFORE] = agent_leftovers()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not _controller(config) or _BEFORE not in config.stash:
        return
    left = sorted(agent_leftovers() - config.stash[_BEFORE])
    if left:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        message = f"agent scratch left on the host after the session: {', '.join(left[:10])}"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
