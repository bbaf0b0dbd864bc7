"""Red team: a harness killed mid-run leaves no temporary folder behind for good, and a run never removes
the folders of another run that is still alive.

Run A is killed with SIGKILL while every row is busy: two agents sleep (each leaving in its workspace a
link to a host folder and a folder closed to everyone), the third agent's submission hangs its check at
import time after planting the same in the check's tree. Its git skeleton, check guard, memory-backed run
scratch (with the attempts, the check's tree and the agents' state folders in it) are left in the private
temporary folder and scratch base. Run B is then started with a sleeping agent and kept alive. A normal
run C must remove every folder A left, of any kind, without following a link into the host folder, and
keep every folder of B. Before `core.tempdirs`, A's git skeletons, check trees and run scratch stayed.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("require_bwrap")

PLANT = ("ln -s {host} escape; mkdir -p closed/inner; touch closed/inner/f; chmod 000 closed/inner closed")
HANG_CHECK = ("import os, time\n"
              "os.chdir(os.environ.get('REQBENCH_WORKSPACE', '.'))\n"
              "try:\n    os.symlink({host!r}, 'escape'); os.makedirs('closed/inner'); os.chmod('closed', 0)\n"
              "except OSError:\n    pass\n"
              "time.sleep(300)\n")


def _template(host: Path) -> str:
    """Slugkit's agent makes its check hang; the other tasks' agents plant a hostile tree and sleep."""
    hang = shlex.quote(HANG_CHECK.format(host=str(host)))
    script = (f"if [ -d src/slugkit ]; then printf '%s\\n' {hang} >> src/slugkit/__init__.py; "
              f"else {PLANT.format(host=shlex.quote(str(host)))}; sleep 300; fi")
    return "sh -c " + shlex.quote(script)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "REQBENCH_SCRATCH": str(tmp_path / "shm")}


def _start(tmp_path: Path, out: str, suite: str, *agent: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "reqbench", "run", suite, "--condition", "direct", "--quiet",
                             "--out", str(tmp_path / out), *agent], env=_env(tmp_path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _entries(tmp_path: Path) -> set[Path]:
    """What lies in the private temporary folder and scratch base (top level)."""
    return {p for d in (tmp_path / "tmp", tmp_path / "shm") if d.is_dir() for p in d.iterdir()}


def _below(tmp_path: Path, pattern: str) -> list[Path]:
    return [p for d in (tmp_path / "tmp", tmp_path / "shm") if d.is_dir() for p in d.glob(pattern)]


def _wait(what: Callable[[], bool], proc: subprocess.Popen[bytes], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the run never reached the expected state"
        time.sleep(0.2)


@pytest.mark.slow
def test_a_killed_runs_folders_of_every_kind_go_with_the_next_run_and_a_live_runs_stay(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    host = tmp_path / "host"
    (host / "keep").mkdir(parents=True)
    (host / "keep" / "file").write_text("the user's")
    killed = _start(tmp_path, "run-a", "demo:specpath", "--concurrency", "3", "--agent", "command",
                    "--agent-opt", f"template={_template(host)}")
    try:
        _wait(lambda: len(_below(tmp_path, "*/*/reqbench-check-*/workspace/escape")) == 1
              and len(_below(tmp_path, "*/*/*/escape")) == 2 and bool(_below(tmp_path, "reqbench-git-*")), killed)
    finally:
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
    left = _entries(tmp_path)
    names = " ".join(p.name for p in left)
    assert all(kind in names for kind in ("reqbench-git-", "reqbench-guard-", "run-")), names
    states = set(_below(tmp_path, "*/.trash/reqbench-agent-*"))
    assert len(states) == 2

    alive = _start(tmp_path, "run-b", "demo:specpath/slugkit", "--agent", "command",
                   "--agent-opt", "template=sleep 300")
    try:
        _wait(lambda: bool(set(_below(tmp_path, "*/.trash/reqbench-agent-*")) - states), alive)
        theirs = _entries(tmp_path) - left
        their_states = set(_below(tmp_path, "*/.trash/reqbench-agent-*")) - states
        proc = subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath/kvconf", "--condition",
                               "direct", "--quiet", "--agent", "null", "--out", str(tmp_path / "run-c")],
                              env=_env(tmp_path), capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        now = _entries(tmp_path)
        assert alive.poll() is None and theirs and theirs <= now  # the live run's folders are all there
        assert all(state.is_dir() for state in their_states)  # its agent's state folder too
        assert not left & now, sorted(p.name for p in left & now)  # nothing the killed run left
        assert (host / "keep" / "file").read_text() == "the user's"  # no link was followed
    finally:
        os.killpg(alive.pid, signal.SIGKILL)
        alive.wait()

