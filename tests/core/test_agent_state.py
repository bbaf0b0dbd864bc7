"""`core.agents.state`: where a tool's shared files live, how they are measured against the scratch bound,
and how they are removed (never raising, through the run's trash inside a run)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from reqbench.core.agents import state
from reqbench.core.sandbox.scratch import SCRATCH_ENV
from reqbench.core.workspace import discard
from reqbench.core.workspace.discard import trash_in

MiB = 1024**2


def test_a_state_folder_is_private_and_removed_at_the_end() -> None:
    with state.state_folder("unit") as folder:
        assert folder.name.startswith("reqbench-unit-") and (os.stat(folder).st_mode & 0o777) == 0o700
        (folder / "sub").mkdir()
        (folder / "sub" / "f").write_text("x")
    assert not folder.exists()


def test_inside_a_run_the_folder_lives_in_the_run_s_trash_and_goes_with_it(tmp_path: Path) -> None:
    with trash_in(tmp_path / "trash") as trash:
        folder = state.make_state_folder("unit")
        assert folder.parent == trash
        (folder / "f").write_text("x")
        state.release(folder)
        assert not folder.exists()
    assert not trash.exists()


def test_a_removal_that_fails_is_logged_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    def broken(path: object) -> None:
        raise OSError("device busy")

    monkeypatch.setattr(discard, "discard", broken)
    with caplog.at_level(logging.WARNING):
        state.release(tmp_path)
    assert "could not remove the agent folder" in caplog.text


@pytest.mark.slow
def test_overflow_counts_allocated_bytes_and_entries_against_the_bound(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCRATCH_ENV, "16M")
    (tmp_path / "small").write_bytes(b"x" * MiB)
    with open(tmp_path / "sparse", "wb") as fh:  # 1 GiB long, nothing allocated
        fh.truncate(1024**3)
    assert state.overflow(tmp_path) == ""
    (tmp_path / "big").write_bytes(b"x" * 20 * MiB)
    assert "more than the scratch bound of 16 MiB" in state.overflow(tmp_path)
    (tmp_path / "big").unlink()
    many = tmp_path / "many"
    many.mkdir()
    for i in range(17 * 1024):  # empty files count 1 KiB each
        (many / str(i)).touch()
    assert state.overflow(tmp_path)
    state.empty(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_overflow_never_follows_a_link_and_refuses_a_tree_too_deep(tmp_path: Path) -> None:
    host = tmp_path / "host"
    host.mkdir()
    (host / "big").write_bytes(b"x" * 2 * MiB)
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "link").symlink_to(host)
    assert state.overflow(folder, bound=MiB) == ""
    deep = folder
    for _ in range(state.MAX_DEPTH + 1):
        deep = deep / "d"
    deep.mkdir(parents=True)
    assert "deeper than" in state.overflow(folder, bound=1024**3)
