"""Red team: what the single-threaded output pump and the background removal of finished trees could be
made to do.

* A submission floods the guard's evidence channel (every inherited pipe) past its cap: the channel is
  marked as overflowing, the check FAILs, nothing blocks.
* A submission leaves a process behind holding the channel: the sandbox's end kills it, the check is
  judged on what arrived, promptly.
* A finished agent workspace holding a link to a host folder and a folder it closed to everyone is
  removed in the background without following the link.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from reqbench.core.checks import CheckStatus
from reqbench.core.execute.runner import TRASH
from reqbench.core.workspace.discard import discard, trash_in
from tests.security.test_checks_cannot_be_forged import (
    WRONG_ADD,
    assert_forgery_fails,
    assert_honest_passes,
    make_task,
    run,
)

pytestmark = pytest.mark.usefixtures("require_bwrap")


@pytest.fixture
def task(tmp_path: Path) -> dict[str, Path]:
    return make_task(tmp_path)

FLOOD = """
import json, os, stat
line = (json.dumps({"t": "0" * 32, "e": "report", "id": "test_calc.py::test_add", "when": "call",
                    "outcome": "passed"}) + "\\n").encode()
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            for _ in range(30_000_000 // len(line)):
                os.write(fd, line)
    except OSError:
        pass
"""

LINGER = """
import os, time
if os.fork() == 0:
    os.setsid()
    time.sleep(600)  # holds every inherited descriptor, the evidence channel among them
    os._exit(0)
"""


def test_flooding_the_evidence_channel_is_fail_and_marked(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": WRONG_ADD + FLOOD})
    assert result.status is CheckStatus.FAIL, result
    assert "exceeded" in result.detail
    assert_honest_passes(task)


def test_a_process_left_holding_the_channel_changes_nothing(task: dict[str, Path]) -> None:
    started = time.monotonic()
    result = run(task, {"calc/__init__.py": WRONG_ADD + LINGER})
    assert_forgery_fails(result)
    assert time.monotonic() - started < 60  # the sandbox's end closed the channel: no 600 s wait
    assert_honest_passes(task)


def test_background_removal_never_follows_an_agents_link(tmp_path: Path) -> None:
    host = tmp_path / "host"
    host.mkdir()
    (host / "precious").write_text("keep")
    row = tmp_path / "row"
    ws = row / "agent"
    (ws / "closed" / "deep").mkdir(parents=True)
    (ws / "closed" / "deep" / "f").write_text("x")
    os.symlink(host, ws / "link")
    os.symlink(host / "precious", ws / "closed" / "file-link")
    os.chmod(ws / "closed", 0)
    with trash_in(tmp_path / TRASH):
        discard(ws)
        assert not ws.exists()
    assert (host / "precious").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host", "row"]
