"""`workspace.discard` and `core.idle`: finished trees leave their place at once and are removed in the
background only inside a run's trash folder, and only while no row thread is working."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from reqbench.core import idle
from reqbench.core.execute.runner import TRASH, remove_stale_attempt_dirs
from reqbench.core.workspace.discard import discard, drain, trash_in


def _tree(root: Path) -> Path:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f").write_text("x")
    (root / "g").write_text("y")
    return root


def _wait_for(predicate: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_outside_a_trash_folder_the_tree_is_removed_before_discard_returns(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "t")
    discard(tree)
    assert list(tmp_path.iterdir()) == []
    discard(tmp_path / "missing")  # nothing there: fine


def test_inside_trash_in_the_tree_moves_at_once_and_is_gone_when_the_block_ends(tmp_path: Path) -> None:
    trash = tmp_path / TRASH
    with trash_in(trash):
        tree = _tree(tmp_path / "row" / "agent")
        discard(tree)
        assert list((tmp_path / "row").iterdir()) == []  # its parent can be removed right away
        os.rmdir(tmp_path / "row")
    assert list(tmp_path.iterdir()) == []  # every queued removal waited for, the trash folder removed


def test_removals_wait_while_a_row_thread_works_and_run_while_it_waits(tmp_path: Path) -> None:
    entered, release, waiting, done = (threading.Event() for _ in range(4))

    def row() -> None:
        with idle.working():
            entered.set()
            release.wait(30)
            with idle.waiting():  # as while its check's process runs
                waiting.set()
                done.wait(30)

    worker = threading.Thread(target=row)
    worker.start()
    try:
        assert entered.wait(30)
        with trash_in(tmp_path / TRASH) as trash:
            discard(_tree(tmp_path / "t"))
            time.sleep(0.3)
            assert len(list(trash.iterdir())) == 1  # the row is working: not removed beside it
            release.set()
            assert waiting.wait(30)
            assert _wait_for(lambda: not any(trash.iterdir()))  # removed while the row waited
            done.set()
    finally:
        release.set()
        done.set()
        worker.join(30)


def test_drain_from_a_working_thread_does_not_wait_for_idleness(tmp_path: Path) -> None:
    with idle.working(), trash_in(tmp_path / TRASH) as trash:
        discard(_tree(tmp_path / "t"))
        drain()
        assert not any(trash.iterdir())


def test_a_killed_runs_trash_folder_is_removed_with_its_stale_attempt_folders(tmp_path: Path) -> None:
    work = tmp_path / "work"
    _tree(work / TRASH / "0123")
    _tree(work / "0123456789abcdef-0123abcd")
    (work / "cache").mkdir()
    remove_stale_attempt_dirs(work)
    assert sorted(p.name for p in work.iterdir()) == ["cache"]


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="needs a second file system at /dev/shm")
def test_a_tree_on_another_file_system_is_removed_inline(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("/dev/shm is on the same file system as the test's folder")
    with trash_in(tmp_path / TRASH) as trash:
        other = Path(os.path.realpath(shm)) / f"reqbench-test-{os.getpid()}"
        _tree(other)
        discard(other)
        assert not other.exists() and not any(trash.iterdir())
