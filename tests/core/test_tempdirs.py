"""`core.tempdirs`: temporary folders name their owner; a sweep removes those whose owner ended, and only those.

Threats guarded: a recycled pid taken for the owner (so a dead run's folder stays for good), a live
process's folder removed (two concurrent runs deleting each other's), a folder of another PID namespace or
another user judged from here, a link named like ours followed into a host folder, a folder the user asked
to keep swept. Real processes, real folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core import tempdirs
from reqbench.core.tempdirs import Owner


def _ended_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()  # reaped: no process has this pid now (until the kernel hands it out again)
    return proc.pid


def _named(parent: Path, kind: str, owner: Owner, suffix: str = "abcdefgh") -> Path:
    path = parent / f"reqbench-{kind}-{owner.stamp}-{suffix}"
    path.mkdir()
    return path


def test_a_folder_names_this_process_with_its_start_time(tmp_path: Path) -> None:
    folder = tempdirs.make("git", tmp_path)
    me = tempdirs.this_process()
    assert tempdirs.owner_of(folder.name) == me and me.pid == os.getpid() and me.start > 0
    assert (os.stat(folder).st_mode & 0o777) == 0o700
    assert tempdirs.keyed("run", "0123abcd", tmp_path) == tmp_path / f"reqbench-run-{me.stamp}-0123abcd"
    with pytest.raises(ValueError):
        tempdirs.make("Bad Kind", tmp_path)
    with pytest.raises(ValueError):
        tempdirs.keyed("run", "../x", tmp_path)


def test_only_folders_whose_owner_ended_are_swept(tmp_path: Path) -> None:
    me = tempdirs.this_process()
    mine = tempdirs.make("guard", tmp_path)  # first: making it sweeps the folder once
    kept = tempdirs.make("codex-session", tmp_path, keep=True)
    parent = tempdirs.Owner(os.getppid(), tempdirs.start_ticks(os.getppid()) or 0, me.pidns)
    ended = _named(tmp_path, "check", Owner(_ended_pid(), me.start, me.pidns))
    recycled = _named(tmp_path, "git", Owner(parent.pid, parent.start - 1, me.pidns))  # same pid, other start
    live = _named(tmp_path, "git", parent)
    elsewhere = _named(tmp_path, "git", Owner(_ended_pid(), me.start, me.pidns + 1))  # another PID namespace
    others = [_named(tmp_path, "git", Owner(_ended_pid(), me.start, me.pidns), "other_user")]
    if os.geteuid() == 0:
        os.chown(others[0], 65534, 65534)
    else:
        others.pop().rmdir()
    legacy = tmp_path / "reqbench-git-abcdefgh"
    legacy.mkdir()
    gone = tempdirs.sweep(tmp_path)
    assert sorted(gone) == sorted([ended.name, recycled.name])
    assert {p.name for p in tmp_path.iterdir()} == {p.name for p in (live, mine, elsewhere, kept, legacy, *others)}


def test_the_sweep_never_follows_a_link_and_opens_closed_folders(tmp_path: Path) -> None:
    me = tempdirs.this_process()
    host = tmp_path / "host"
    (host / "keep").mkdir(parents=True)
    (host / "keep" / "file").write_text("x")
    (tmp_path / "tmp").mkdir()
    stale = _named(tmp_path / "tmp", "check", Owner(_ended_pid(), me.start, me.pidns))
    (stale / "escape").symlink_to(host)
    (stale / "closed" / "inner").mkdir(parents=True)
    os.chmod(stale / "closed" / "inner", 0)
    os.chmod(stale / "closed", 0)
    link = tmp_path / "tmp" / f"reqbench-git-{Owner(_ended_pid(), me.start, me.pidns).stamp}-linklink"
    link.symlink_to(host / "keep")
    tempdirs.sweep(tmp_path / "tmp")
    assert list((tmp_path / "tmp").iterdir()) == []
    assert (host / "keep" / "file").read_text() == "x"


def test_a_process_sweeps_a_folder_once_before_it_makes_its_first_folder_there(tmp_path: Path) -> None:
    me = tempdirs.this_process()
    code = ("import sys; from reqbench.core import tempdirs; "
            "print(tempdirs.make('git', sys.argv[1]).name)")
    stale = _named(tmp_path, "git", Owner(_ended_pid(), me.start, me.pidns))
    made = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert not stale.exists() and (tmp_path / made).is_dir()  # its owner has ended too: the next one sweeps it
