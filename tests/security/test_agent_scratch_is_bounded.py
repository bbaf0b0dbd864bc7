"""Red team: an agent fills its HOME and TMPDIR to fill the host's disk (SECURITY.md, "fills the host's
disk or /tmp through its HOME and TMPDIR").

HOME and TMPDIR of every agent step are a tmpfs inside the sandbox, bounded by
``$REQBENCH_AGENT_SCRATCH_BYTES`` (64 MiB here): an agent writing 200 MiB to either gets ENOSPC at the
bound, its step is its own ERROR naming the bound (even when it exits 0), and neither the host's ``/tmp``
nor its disk receives a byte. A preset's state folder (files the harness reads back) is measured after
each turn against the same bound: over it, the turn is the agent's ERROR and the folder is emptied.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.llm_agent import run_shell
from reqbench.core.agents.registry import make_agent
from reqbench.core.sandbox.scratch import SCRATCH_ENV
from tests.security.hostile_scratch import FILLER, assert_nothing_left, reqbench_entries, script

pytestmark = pytest.mark.usefixtures("require_bwrap")

FILL = 200 * 1024**2
MiB = 1024**2


@pytest.fixture(autouse=True)
def small_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCRATCH_ENV, "64M")


def free_bytes(path: str) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


@pytest.mark.parametrize("target", ["TMPDIR", "HOME", "HOME TMPDIR"])
def test_an_agent_filling_its_home_or_tmpdir_stops_at_the_bound_and_fails_with_it_named(
        tmp_path: Path, target: str) -> None:
    mark = f"fill-{uuid.uuid4().hex}"
    exe = script(tmp_path, "filler", FILLER)
    ws = tmp_path / "ws"
    ws.mkdir()
    before, disk, tmp = reqbench_entries(), free_bytes("/"), free_bytes("/tmp")
    agent = make_agent("command", template=[str(exe)], env=f"MARK={mark},FILL_BYTES={FILL},TARGETS={target}")
    result = agent.run(ws, AgentInputs(prompt="fill"), Budget(wall_seconds=120))
    assert result.status is AgentStatus.ERROR, result.detail  # although the script exits 0
    assert "filled its HOME/TMPDIR scratch of 64 MiB" in result.detail and SCRATCH_ENV in result.detail
    assert "No space left on device" in result.trajectory[0].data["stderr_tail"]
    assert_nothing_left(mark, before)
    # 200 MiB (400 MiB for both) would have landed on the host's disk; allow for others' activity
    assert disk - free_bytes("/") < FILL * 3 // 4 and tmp - free_bytes("/tmp") < FILL * 3 // 4


def test_a_preset_whose_state_folder_outgrows_the_bound_fails_and_its_files_are_dropped(tmp_path: Path) -> None:
    """The state folder outlives the sandbox (the harness reads the tool's files from it), so it is measured
    after the turn: 100 MiB there, with a bound of 64 MiB, is the agent's ERROR and none of it is kept."""
    mark = f"state-{uuid.uuid4().hex}"
    exe = script(tmp_path, "aider", FILLER)
    ws = tmp_path / "ws"
    ws.mkdir()
    before = reqbench_entries()
    agent = make_agent("aider", binary=str(exe), env={"MARK": mark, "FILL_BYTES": str(100 * MiB), "TARGETS": ""})
    result = agent.run(ws, AgentInputs(prompt="fill"), Budget(wall_seconds=120))
    assert result.status is AgentStatus.ERROR
    assert "state folder holds more than the scratch bound of 64 MiB" in result.detail, result.detail
    assert_nothing_left(mark, before)


def test_a_shell_command_of_the_llm_agent_that_fills_its_scratch_tells_the_model_the_bound(tmp_path: Path) -> None:
    code, output, timed_out = run_shell('head -c 200M /dev/zero > "$TMPDIR/x"', tmp_path, 120)
    assert code != 0 and not timed_out
    assert "filled its HOME/TMPDIR scratch of 64 MiB" in output
