"""Red team: a preset session's state folder (the task prompt, the tool's resumable state) ends with the
session, even when nobody closes it.

A Codex-like tool (a stand-in executable speaking ``codex exec --json``) holds a resumable session whose
state folder lies in the host's memory-backed scratch. A caller that fails between opening and closing the
session, or a process that simply ends, used to leave ``reqbench-codex-session-*`` (with the prompt in it)
there for good. Now the folder goes at `close`, when the session is dropped, or when the process exits.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentStatus, Budget
from reqbench.core.agents.registry import make_agent

pytestmark = pytest.mark.usefixtures("require_bwrap")

FAKE_CODEX = """#!/bin/sh
case "$1" in --version) echo "codex-cli 0.0.1"; exit 0;; esac
cat >/dev/null
echo '{"type":"thread.started","thread_id":"th-1"}'
echo '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"Done."}}'
echo '{"type":"turn.completed","usage":{"input_tokens":9,"cached_input_tokens":0,"output_tokens":6}}'
"""

LEAVE_OPEN = """
import sys
from pathlib import Path
from reqbench.core.agents.base import Budget
from reqbench.core.agents.registry import make_agent
session = make_agent("codex", binary=sys.argv[1], stage="diagnostic").start_session(Path(sys.argv[2]))
result = session.send("the secret task prompt", Budget(wall_seconds=60))
print(session.scratch, result.status.value)
"""  # the process ends with the session still open


def _codex(tmp_path: Path) -> Path:
    exe = tmp_path / "bin" / "codex"
    exe.parent.mkdir()
    exe.write_text(FAKE_CODEX)
    exe.chmod(0o755)
    (tmp_path / "ws").mkdir()
    return exe


def _sessions(base: Path) -> list[Path]:
    return list(base.glob("reqbench-codex-session-*")) if base.is_dir() else []


def test_a_session_left_open_by_a_process_that_ends_leaves_no_folder(tmp_path: Path) -> None:
    exe, scratch = _codex(tmp_path), tmp_path / "shm"
    env = {**os.environ, "REQBENCH_SCRATCH": str(scratch), "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", LEAVE_OPEN, str(exe), str(tmp_path / "ws")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    folder, status = proc.stdout.split()
    assert status == AgentStatus.COMPLETED.value and Path(folder).parent == scratch
    assert not Path(folder).exists() and _sessions(scratch) == []


def test_a_dropped_session_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe, scratch = _codex(tmp_path), tmp_path / "shm"
    monkeypatch.setenv("REQBENCH_SCRATCH", str(scratch))
    session = make_agent("codex", binary=str(exe), stage="diagnostic").start_session(tmp_path / "ws")
    result = session.send("the secret task prompt", Budget(wall_seconds=60))
    folder = session.scratch
    assert result.status is AgentStatus.COMPLETED and (folder / "prompt.md").is_file()
    del session
    gc.collect()
    assert not folder.exists() and _sessions(scratch) == []
