"""A check's hidden tests and guard: bound read-only from one copy under bubblewrap, copied per check
without it; the shared guard directory is re-created whenever it is not exactly what the harness wrote."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core import sandbox, tempdirs
from reqbench.core.checks import GUARD_DIR, Check, CheckStatus, guarddir, run_check
from reqbench.core.checks.guarddir import INI_NAME, INI_TEXT, guard_dir, guard_files
from reqbench.core.checks.run import sandbox_can_read
from reqbench.core.sandbox import available_isolation

needs_bwrap = pytest.mark.skipif(available_isolation() != "bwrap", reason="bubblewrap not usable here")
PASSING = "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    return ws


@pytest.fixture
def hidden(tmp_path: Path) -> Path:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_calc.py").write_text(PASSING)
    return hidden


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("REQBENCH_SANDBOX", "none")
    sandbox.available_isolation.cache_clear()
    yield
    monkeypatch.delenv("REQBENCH_SANDBOX")
    sandbox.available_isolation.cache_clear()


def _inode_check(hidden: Path) -> Check:
    """PASS iff the check's {hidden}/test_calc.py is the suite's own file (same inode)."""
    inode = os.stat(hidden / "test_calc.py").st_ino
    return Check(name="inode", command=f'test "$(stat -c %i {{hidden}}/test_calc.py)" = {inode}')


@needs_bwrap
def test_with_bubblewrap_the_hidden_directory_is_bound_not_copied(workspace: Path, hidden: Path) -> None:
    assert run_check(_inode_check(hidden), workspace, hidden).status is CheckStatus.PASS


@needs_bwrap
@pytest.mark.parametrize("oddity", ["unreadable file", "unsearchable folder", "fifo"])
def test_a_hidden_directory_a_bind_would_show_differently_is_copied(workspace: Path, hidden: Path,
                                                                    oddity: str) -> None:
    """A file only the harness's capabilities can read (a suite checked out with umask 077 by another
    user), or a special file, would make the bound directory differ from a copy: it is copied."""
    if oddity != "fifo" and os.getuid() != 0:
        pytest.skip("only a harness running as root can read (and copy) what its sandbox cannot")
    assert sandbox_can_read(hidden)
    if oddity == "unreadable file":
        os.chmod(hidden / "test_calc.py", 0o000)
    elif oddity == "unsearchable folder":
        (hidden / "data").mkdir()
        (hidden / "data" / "x.txt").write_text("x\n")
        os.chmod(hidden / "data", 0o600)
    else:
        os.mkfifo(hidden / "pipe")
    try:
        assert not sandbox_can_read(hidden)
        assert run_check(_inode_check(hidden), workspace, hidden).status is CheckStatus.FAIL  # a copy
        reads = Check(name="r", command="cat {hidden}/test_calc.py >/dev/null && test ! -e {hidden}/pipe"
                                        " && { test ! -e {hidden}/data || cat {hidden}/data/x.txt; }")
        assert run_check(reads, workspace, hidden).status is CheckStatus.PASS
    finally:
        os.chmod(hidden / "test_calc.py", 0o644)
        if (hidden / "data").exists():
            os.chmod(hidden / "data", 0o755)


def test_without_bubblewrap_each_check_gets_its_own_copy(workspace: Path, hidden: Path, no_sandbox: None) -> None:
    assert run_check(_inode_check(hidden), workspace, hidden).status is CheckStatus.FAIL
    vandal = Check(name="v", command="echo 'def test_x(): pass' > {hidden}/test_calc.py; exit 0")
    assert run_check(vandal, workspace, hidden).status is CheckStatus.PASS
    assert (hidden / "test_calc.py").read_text() == PASSING


def test_pytest_check_without_bubblewrap_runs_with_a_private_guard(workspace: Path, hidden: Path,
                                                                   no_sandbox: None) -> None:
    result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120), workspace, hidden)
    assert result.status is CheckStatus.PASS, result.detail
    assert result.probes == {"test_calc.py::test_add": True}


@needs_bwrap
def test_pytest_check_with_the_shared_guard_and_a_bound_hidden_directory(workspace: Path, hidden: Path) -> None:
    check = Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120,
                  expected_tests=["test_calc.py::test_add"])
    for _ in range(2):  # the second check reuses the guard directory the first one verified
        result = run_check(check, workspace, hidden)
        assert result.status is CheckStatus.PASS, result.detail
        assert result.probes == {"test_calc.py::test_add": True}


@needs_bwrap
def test_a_missing_hidden_path_is_still_found_on_the_bound_directory(workspace: Path, hidden: Path) -> None:
    named = Check(name="t", command="{pytest} -q {hidden}/test_calc.py", timeout_seconds=120)
    assert run_check(named, workspace, hidden).status is CheckStatus.PASS
    missing = Check(name="t", command="{pytest} -q {hidden}/test_gone.py", timeout_seconds=120)
    result = run_check(missing, workspace, hidden)
    assert result.status is CheckStatus.HARNESS_ERROR and "missing hidden paths" in result.detail


def test_guard_directory_is_prepared_once_and_holds_exactly_the_guard() -> None:
    first = guard_dir()
    assert guard_dir() == first
    assert sorted(os.listdir(first)) == sorted(guard_files()) == [INI_NAME, "reqbench_guard.pyc",
                                                                  "reqbench_pytest.pyc"]
    assert (first / INI_NAME).read_bytes() == INI_TEXT
    assert os.stat(first).st_mode & 0o777 == 0o500


@pytest.mark.parametrize("tamper", ["extra", "changed", "removed", "link", "opened"])
def test_a_tampered_guard_directory_is_replaced(tmp_path: Path, tamper: str) -> None:
    old = guard_dir()
    os.chmod(old, 0o700)
    module = old / "reqbench_guard.pyc"
    if tamper == "extra":
        (old / "pytest.py").write_text("raise SystemExit(0)\n")  # would shadow pytest on PYTHONPATH
    elif tamper == "changed":
        os.chmod(module, 0o600)
        module.write_bytes(module.read_bytes().replace(b"_emit", b"_emiT", 1))
    elif tamper == "removed":
        (old / INI_NAME).unlink()
    elif tamper == "link":
        (tmp_path / "ini").write_bytes(INI_TEXT)
        (old / INI_NAME).unlink()
        (old / INI_NAME).symlink_to(tmp_path / "ini")
    if tamper != "opened":  # "opened": only its mode changed (others could now write into it)
        os.chmod(old, 0o500)
    else:
        os.chmod(old, 0o777)
    new = guard_dir()
    assert new != old and not old.exists()
    assert sorted(os.listdir(new)) == sorted(guard_files())
    assert all((new / name).read_bytes() == content for name, content in guard_files().items())


def test_a_forked_process_prepares_its_own_guard_directory() -> None:
    parent = guard_dir()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.write(write, str(guard_dir()).encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert child and child != str(parent)
    assert guard_dir() == parent
    guarddir._remove(Path(child))


def test_a_changed_guard_source_is_rewritten_into_the_shared_directory(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "checkguard"
    source.mkdir()
    module = source / "reqbench_guard.py"
    module.write_bytes((GUARD_DIR / "reqbench_guard.py").read_bytes())
    shutil.copy(GUARD_DIR / "reqbench_pytest.py", source)
    monkeypatch.setattr(guarddir, "GUARD_DIR", source)
    before = guard_dir()
    module.write_bytes(module.read_bytes() + b"\nREVISED = 1\n")
    after = guard_dir()
    assert after != before and b"REVISED" in (after / "reqbench_guard.pyc").read_bytes()
    monkeypatch.undo()
    assert b"REVISED" not in (guard_dir() / "reqbench_guard.pyc").read_bytes()


def test_guard_directories_left_by_ended_processes_are_removed(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone_pid = subprocess.Popen(["true"])  # its pid is gone once it was waited for
    gone_pid.wait()
    me = tempdirs.this_process()
    parent = tempdirs.Owner(os.getppid(), tempdirs.start_ticks(os.getppid()) or 0, me.pidns)
    stale = tmp_path / f"reqbench-guard-{tempdirs.Owner(gone_pid.pid, me.start, me.pidns).stamp}-abc"
    recycled = tmp_path / f"reqbench-guard-{tempdirs.Owner(parent.pid, parent.start + 1, me.pidns).stamp}-abc"
    alive = tmp_path / f"reqbench-guard-{parent.stamp}-def"
    other = tmp_path / "reqbench-guard-notapid"
    for path in (stale, recycled, alive, other):
        path.mkdir()
    os.chmod(stale, 0o500)
    guarddir._prepared.pop(os.getpid(), None)  # make this process prepare a fresh one
    fresh = guard_dir()
    assert fresh.parent == tmp_path and tempdirs.owner_of(fresh.name) == me
    assert not stale.exists() and not recycled.exists() and alive.exists() and other.exists()
    guarddir._remove(fresh)
    guarddir._prepared.pop(os.getpid(), None)
