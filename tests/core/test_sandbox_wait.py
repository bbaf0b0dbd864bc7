"""`launch.wait_exit` (waiting on a pidfd instead of polling with sleeps) and `view._under` (string prefix
instead of ``Path.parents``) keep the meaning of what they replaced."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reqbench.core.sandbox.launch import wait_exit
from reqbench.core.sandbox.view import _under


def test_wait_exit_returns_the_exit_code() -> None:
    proc = subprocess.Popen(["sh", "-c", "exit 7"])
    assert wait_exit(proc, 30) == 7
    assert proc.returncode == 7


def test_wait_exit_without_timeout_and_for_an_already_reaped_process() -> None:
    proc = subprocess.Popen(["true"])
    assert wait_exit(proc, None) == 0
    assert wait_exit(proc, 5) == 0  # reaped already: no pidfd, plain wait


def test_wait_exit_raises_at_the_timeout_and_leaves_the_process_running() -> None:
    proc = subprocess.Popen(["sleep", "30"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_exit(proc, 0.2)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(("path", "parent", "under"), [
    ("/a/b", "/a/b", True), ("/a/b/c", "/a/b", True), ("/a/bc", "/a/b", False), ("/a", "/a/b", False),
    ("/x", "/", True), ("/", "/", True), ("/usr/lib", "/usr", True), ("/usrx", "/usr", False)])
def test_under_is_path_containment(path: str, parent: str, under: bool) -> None:
    assert _under(Path(path), Path(parent)) is under
