"""Red-team tests: a process left over from the agent cannot alter the tree a check runs on.

A check runs on a fresh copy of the submission (`core.checks.run_check`); only a tree the harness made
for the check alone may be handed over with ``consume=True`` (moved, not copied). Each test stops a real
sandboxed check half-way (it waits for a go file in its output directory), lets a hostile host process
rewrite the submission, and resumes it: what the check reads must be what was submitted.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check

pytestmark = pytest.mark.usefixtures("require_bwrap")

SUBMITTED = "def add(a, b):\n    return a - b\n"
FORGED = "def add(a, b):\n    return a + b\n"
# PASS iff the check still reads the submitted (wrong) add after the attack had its chance
WAIT_THEN_READ = ("touch {output}/started; i=0; while [ ! -e {output}/go ] && [ $i -lt 600 ]; "
                  "do sleep 0.05; i=$((i+1)); done; grep -q 'a - b' calc.py && exit 0 || exit 1")


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the check's scratch directory at a place the test can watch."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    yield tmp


def _submission(root: Path) -> Path:
    ws = root / "submission"
    ws.mkdir()
    (ws / "calc.py").write_text(SUBMITTED)
    return ws


def _attack_when_started(scratch_parent: Path, attack: list[str], cwd: Path) -> threading.Thread:
    """Once the check has started, run `attack` (a real process) and then let the check go on."""
    def run() -> None:
        for _ in range(1200):
            started = list(scratch_parent.glob("reqbench-check-*/output/started"))
            if started:
                subprocess.run(attack, cwd=cwd, check=False, capture_output=True, timeout=30)
                (started[0].parent / "go").touch()
                return
            threading.Event().wait(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_agent_workspace_is_copied_a_lingering_process_in_it_changes_nothing_checked(
        tmp_path: Path, private_tmp: Path) -> None:
    ws = _submission(tmp_path)
    # the leftover process sits in the agent's workspace (its cwd) and rewrites the submission mid-check
    attack = ["sh", "-c", f"printf '{FORGED}' > calc.py"]
    thread = _attack_when_started(private_tmp, attack, cwd=ws)
    result = run_check(Check(name="race", command=WAIT_THEN_READ, timeout_seconds=60), ws)
    thread.join(timeout=60)
    assert (ws / "calc.py").read_text() == FORGED  # the attack did land in the agent's tree
    assert result.status is CheckStatus.PASS, result.detail  # ... but not in the copy that was checked


def test_consumed_tree_is_out_of_reach_of_its_old_path_during_the_check(tmp_path: Path) -> None:
    """A harness-made tree handed over with ``consume=True`` is moved into the check's private (0700)
    scratch directory: a process that knows where it was cannot write into it while the check runs."""
    ws = _submission(tmp_path)
    attack = ["sh", "-c", f"printf '{FORGED}' > {ws}/calc.py"]
    thread = _attack_when_started(tmp_path, attack, cwd=tmp_path)
    result = run_check(Check(name="race", command=WAIT_THEN_READ, timeout_seconds=60), ws, consume=True)
    thread.join(timeout=60)
    assert result.status is CheckStatus.PASS, result.detail
    assert (ws / "calc.py").read_text() == SUBMITTED  # moved back untouched for the caller to discard
    assert not list(tmp_path.glob("reqbench-check-*"))
