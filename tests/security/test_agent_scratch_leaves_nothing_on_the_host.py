"""Red team: an agent leaves trees in its HOME and TMPDIR that the harness cannot remove, or that make
it follow a link (SECURITY.md, "leaves trees in its HOME, TMPDIR or state folder").

The planted folder holds a 10,000-deep tree (``shutil.rmtree`` recurses and gives up), 100,000 files, a
FIFO, a link to a host folder, and is closed to everyone. HOME and TMPDIR are a tmpfs inside the sandbox,
so for the `command` agent none of it ever reaches the host; a preset's state folder lives on the host
(its files are read back) and is removed with `fileio.remove_tree`, iteratively and without following a
link. Either way the step ends as the agent's outcome, nothing named like the planted folder is left in
the host's temporary folders or scratch base, no new ``reqbench-*`` entry holds it, and the linked host
folder is untouched.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.preset_base import ResumablePreset
from reqbench.core.agents.registry import make_agent
from tests.security.hostile_scratch import PLANTER, assert_nothing_left, reqbench_entries, script

pytestmark = pytest.mark.usefixtures("require_bwrap")


@pytest.fixture
def host_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "host"
    folder.mkdir()
    (folder / "keep.txt").write_text("host data\n")
    return folder


def assert_host_clean(mark: str, before: set[Path], host_dir: Path) -> None:
    assert_nothing_left(mark, before)
    assert sorted(p.name for p in host_dir.iterdir()) == ["keep.txt"]
    assert (host_dir / "keep.txt").read_text() == "host data\n"


def test_a_command_agent_s_hostile_home_and_tmpdir_never_reach_the_host(tmp_path: Path, host_dir: Path) -> None:
    mark = f"plant-{uuid.uuid4().hex}"
    exe = script(tmp_path, "planter", PLANTER)
    ws = tmp_path / "ws"
    ws.mkdir()
    before = reqbench_entries()
    agent = make_agent("command", template=[str(exe)], env=f"MARK={mark},HOST_DIR={host_dir}")
    result = agent.run(ws, AgentInputs(prompt="plant"), Budget(wall_seconds=300))
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert result.reply == "planted 2"
    assert_host_clean(mark, before, host_dir)


def test_a_preset_s_hostile_state_folder_is_removed_without_following_its_link(tmp_path: Path,
                                                                               host_dir: Path) -> None:
    mark = f"plant-{uuid.uuid4().hex}"
    exe = script(tmp_path, "aider", PLANTER)
    ws = tmp_path / "ws"
    ws.mkdir()
    before = reqbench_entries()
    agent = make_agent("aider", binary=str(exe), env={"MARK": mark, "HOST_DIR": str(host_dir)})
    result = agent.run(ws, AgentInputs(prompt="plant"), Budget(wall_seconds=300))
    assert result.status is AgentStatus.ERROR  # a tree that deep is over the state folder's bound
    assert "state folder holds more than the scratch bound" in result.detail, result.detail
    assert_host_clean(mark, before, host_dir)


def test_a_preset_session_s_state_folder_is_removed_at_close(tmp_path: Path, host_dir: Path) -> None:
    mark = f"plant-{uuid.uuid4().hex}"
    exe = script(tmp_path, "claude", PLANTER)
    ws = tmp_path / "ws"
    ws.mkdir()
    before = reqbench_entries()
    agent = make_agent("claude-code", binary=str(exe),
                       env={"MARK": mark, "HOST_DIR": str(host_dir), "TARGETS": "HOME TMPDIR CLAUDE_CONFIG_DIR",
                            "DEPTH": "100", "FILES": "1000"})
    assert isinstance(agent, ResumablePreset)
    session = agent.start_session(ws)
    try:
        first = session.send("plant", Budget(wall_seconds=300))
        assert first.status is AgentStatus.COMPLETED, first.detail  # within the bound: its own business
        kept = session.scratch / "claude-config" / mark  # within the bound: kept for the next turn
        assert os.path.lexists(kept), sorted(p.name for p in session.scratch.iterdir())
    finally:
        session.close()
    assert not session.scratch.exists()
    assert_host_clean(mark, before, host_dir)
