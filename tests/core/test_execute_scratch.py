"""Where rows' scratch trees live (`core.execute.scratch`): a private memory-backed folder, else ``work/``.

Threats guarded: scratch made in a folder someone else prepared in the world-writable ``/dev/shm`` (a
link, another mode), a killed run's scratch never removed, rows of two runs sharing a folder, the
``run`` setting ignored. Real runs of the toy protocol, real folders.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.scratch import private_dir, run_scratch, scratch_base
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.core.toy_protocol import ToyProtocol, write_suite


def open_store(run_dir: Path) -> RunStore:
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    return RunStore.create(run_dir, meta)


def test_rows_work_in_the_run_s_own_private_scratch_which_a_resumed_run_cleans(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_SCRATCH", str(tmp_path / "scratch"))
    suite = write_suite(tmp_path / "suite", [{"id": "t", "value": 1}, {"id": "u", "value": 2}])
    loaded = ToyProtocol().load(suite)
    seen: list[Path] = []
    run_row = loaded.run_row
    loaded.run_row = lambda row, ctx: (seen.append(ctx.work_dir), run_row(row, ctx))[1]  # type: ignore[method-assign]
    run_dir = tmp_path / "run"
    folder = run_scratch(run_dir)
    assert folder.parent == tmp_path / "scratch" and folder != run_scratch(tmp_path / "other-run")
    stale = folder / "0123456789abcdef-deadbeef"  # what a killed run left
    (stale / "workspace").mkdir(parents=True)
    with open_store(run_dir) as store:
        execute_run(store, loaded, RunOptions())
    assert seen and all(p.parent == folder for p in seen)
    assert not folder.exists()  # every attempt folder removed, then the run's folder
    assert (os.stat(tmp_path / "scratch").st_mode & 0o777) == 0o700


def test_scratch_in_the_run_directory_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_SCRATCH", "run")
    assert scratch_base() is None and run_scratch(tmp_path / "run") == tmp_path / "run" / "work"


def test_a_base_prepared_by_someone_else_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "open").mkdir()
    os.chmod(tmp_path / "open", 0o777)
    assert not private_dir(tmp_path / "link") and not private_dir(tmp_path / "open")
    assert private_dir(tmp_path / "mine") and private_dir(tmp_path / "mine")  # made once, then accepted
    for name in ("link", "open"):
        monkeypatch.setenv("REQBENCH_SCRATCH", str(tmp_path / name))
        assert scratch_base() is None
        assert run_scratch(tmp_path / "run") == tmp_path / "run" / "work"
