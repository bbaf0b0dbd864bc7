"""Hostile workspace content: every byte of an agent's workspace is the agent's to choose.

Diffs of odd content must round-trip exactly (a fresh copy of the base plus the patch has the agent's
tree hash), special files are skipped and recorded, nothing is followed or blocks, and whatever passes a
`WorkspaceLimits` cap raises `WorkspaceLimitExceeded` (the agent's failure) rather than crashing.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from reqbench.core.errors import AgentWorkspaceError, HarnessError, WorkspaceLimitExceeded
from reqbench.core.workspace import (
    UNLIMITED,
    AgentFailure,
    Workspace,
    WorkspaceLimits,
    copy_tree,
    diff_trees,
    materialize,
    remove_tree,
    safe_diff,
    safe_submission,
    tree_hash,
)
from reqbench.core.workspace.limits import TreeMeter
from reqbench.core.workspace.patches import scan_tree

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def base(tmp_path: Path) -> Path:
    root = tmp_path / "base"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (root / "README").write_text("readme\n")
    (root / "latin.txt").write_bytes(b"caf\xe9 au lait\n")
    return root


@pytest.fixture
def cleanup(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Remove deep trees after the test even when it fails (pytest's own cleanup recurses)."""
    yield
    remove_tree(tmp_path)


def workspace(base: Path, tmp_path: Path, limits: WorkspaceLimits | None = None) -> Workspace:
    ws = materialize(base, tmp_path / "ws")
    if limits is not None:
        ws.limits = limits
    return ws


def round_trip(ws: Workspace, tmp_path: Path) -> str:
    """Diff `ws`, apply the patch to a fresh base copy, and check both trees are identical."""
    patch = ws.diff()
    patch.encode("utf-8")  # always storable as UTF-8 text (raises otherwise)
    fresh = materialize(ws.base, tmp_path / "fresh")
    fresh.limits = ws.limits
    fresh.apply(patch)
    assert tree_hash(fresh.path) == tree_hash(ws.path)
    assert fresh.diff() == patch
    fresh.close()
    return patch


def test_latin1_content_round_trips_as_binary_patch(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    (ws.path / "pkg" / "mod.py").write_bytes(b"# r\xe9sum\xe9\ndef f():\n    return 2\n")
    (ws.path / "new.txt").write_bytes(b"\xff\xfe latin-1 \xe9\n")
    (ws.path / "latin.txt").write_text("now utf-8: café\n")
    (ws.path / "README").write_text("plain edit\n")
    patch = round_trip(ws, tmp_path)
    assert "GIT binary patch" in patch
    assert "+plain edit" in patch  # UTF-8 paths keep their readable diff


def test_non_utf8_names_round_trip(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    raw = os.fsencode(ws.path)
    with open(raw + b"/n\xffme.py", "wb") as fh:
        fh.write(b"x = 1\n")
    os.mkdir(raw + b"/d\xe9r")
    with open(raw + b"/d\xe9r/f\x01\n.txt", "wb") as fh:
        fh.write(b"\x00binary\xff")
    os.symlink(b"target", raw + b"/li\xf1k")
    (ws.path / "caf\u00e9.py").write_text("y = 2\n")
    patch = round_trip(ws, tmp_path)
    assert "caf\u00e9.py" in patch  # UTF-8 names stay readable
    assert '"b/n\\377me.py"' in patch  # others are C-quoted


def test_symlink_with_non_utf8_target_is_skipped_and_recorded(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    os.symlink(b"t\xfarget", os.fsencode(ws.path) + b"/link")
    (ws.path / "ok.txt").write_text("ok\n")
    sub = ws.submission()
    sub.patch.encode("utf-8")
    assert "ok.txt" in sub.patch and "link" not in sub.patch
    assert sub.skipped == ("'link' (symlink target is not UTF-8)",)


def test_binary_and_mode_changes_round_trip(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    (ws.path / "blob.bin").write_bytes(bytes(range(256)) * 50)
    (ws.path / "run").write_bytes(b"#!/bin/sh\n\x00\n")
    os.chmod(ws.path / "run", 0o755)
    (ws.path / "latin.txt").unlink()
    round_trip(ws, tmp_path)


@pytest.mark.slow
def test_deep_tree_is_a_limit_not_a_recursion_error(base: Path, tmp_path: Path, cleanup: None) -> None:
    ws = workspace(base, tmp_path)
    deep = str(ws.path)
    for _ in range(1100):
        deep += "/d"
        os.mkdir(deep)
    Path(deep, "leaf.txt").write_text("leaf\n")
    with pytest.raises(WorkspaceLimitExceeded) as info:
        ws.diff()
    assert info.value.limit == "max_depth"
    assert "64" in info.value.reason
    ws.limits = UNLIMITED  # without caps the same tree diffs, copies and round-trips
    round_trip(ws, tmp_path)
    copy_tree(ws.path, tmp_path / "copy")
    assert tree_hash(tmp_path / "copy") == tree_hash(ws.path)
    remove_tree(tmp_path / "copy")
    ws.close()
    assert not ws.path.exists()


def test_symlink_loops_and_outside_links_are_recorded_never_followed(base: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    ws = workspace(base, tmp_path)
    os.symlink("b", ws.path / "a")
    os.symlink("a", ws.path / "b")
    os.symlink(".", ws.path / "self")
    os.symlink(str(secret), ws.path / "leak")
    os.symlink("/etc/shadow", ws.path / "shadow")
    os.symlink(str(tmp_path), ws.path / "outside_dir")
    patch = round_trip(ws, tmp_path)
    assert "TOP-SECRET-CONTENT" not in patch
    assert f"+{secret}" in patch and "+/etc/shadow" in patch
    assert (tmp_path / "fresh").exists() is False


def test_fifo_is_skipped_and_recorded_without_blocking(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    os.mkfifo(ws.path / "pipe")
    (ws.path / "real.txt").write_text("x\n")
    start = time.monotonic()
    sub = ws.submission()
    assert time.monotonic() - start < 10
    assert "pipe" not in sub.patch and "real.txt" in sub.patch
    assert sub.skipped == ("'pipe' (fifo)",)
    assert sub.to_dict()["skipped"] == ["'pipe' (fifo)"]
    copy_tree(ws.path, tmp_path / "copy")
    assert not (tmp_path / "copy" / "pipe").exists()
    ws.close()


def test_socket_is_skipped_and_recorded(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    old = os.getcwd()
    os.chdir(ws.path)  # AF_UNIX paths are limited to ~108 bytes: bind relative to the workspace
    try:
        sock.bind("sock")
    finally:
        os.chdir(old)
    try:
        sub = ws.submission()
    finally:
        sock.close()
    assert sub.empty and sub.skipped == ("'sock' (socket)",)


def _unprivileged_scenario(root: Path) -> None:
    """chmod-000 entries in a workspace of a non-root user, where 000 really means unreadable."""
    ws = materialize(root / "base", root / "ws")
    (ws.path / "locked.txt").write_text("secret edit\n")
    os.chmod(ws.path / "locked.txt", 0)
    (ws.path / "cell").mkdir()
    (ws.path / "cell" / "inner.txt").write_text("inner\n")
    os.chmod(ws.path / "cell", 0)
    os.chmod(ws.path / "pkg", 0o500)
    patch = ws.diff()
    assert "secret edit" in patch and "inner" in patch, patch
    fresh = materialize(root / "base", root / "fresh")
    fresh.apply(patch)
    assert tree_hash(fresh.path) == tree_hash(ws.path)
    ws.close()
    fresh.close()
    assert not ws.path.exists() and not fresh.path.exists()


def _as_nobody(func, *args: object) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run `func(*args)` in a forked child that dropped to uid/gid 65534; (exit status, error text)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read)
        status = 1
        try:
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            func(*args)
            status = 0
        except BaseException as exc:  # noqa: BLE001 - report anything to the parent
            os.write(write, repr(exc).encode()[:4000])
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        error = fh.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), error


def test_chmod_000_file_and_dir_round_trip(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    (ws.path / "locked.txt").write_text("secret edit\n")
    os.chmod(ws.path / "locked.txt", 0)
    (ws.path / "cell").mkdir()
    (ws.path / "cell" / "inner.txt").write_text("inner\n")
    os.chmod(ws.path / "cell", 0)
    patch = round_trip(ws, tmp_path)
    assert "secret edit" in patch and "inner" in patch
    ws.close()
    assert not ws.path.exists()


def test_chmod_000_entries_when_not_root(base: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        copy_tree(base, tmp_path / "user" / "base")
        _unprivileged_scenario(tmp_path / "user")
        return
    root = Path(tempfile.mkdtemp(prefix="reqbench-nobody-", dir="/tmp"))
    try:
        copy_tree(base, root / "base")
        for dirpath, dirnames, filenames in os.walk(root):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.chown(name, 65534, 65534)
        os.chmod(root, 0o755)
        code, error = _as_nobody(_unprivileged_scenario, root)
        assert code == 0, error
    finally:
        remove_tree(root)


def test_sparse_file_over_the_size_cap_is_rejected_without_reading(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    with open(ws.path / "huge.bin", "wb") as fh:
        os.truncate(fh.fileno(), 2 * 1024**3)  # 2 GiB apparent, nothing on disk
    start = time.monotonic()
    with pytest.raises(WorkspaceLimitExceeded) as info:
        ws.diff()
    assert time.monotonic() - start < 5
    assert info.value.limit == "max_file_bytes"
    assert "'huge.bin'" in info.value.reason
    failure = safe_submission(ws)
    assert isinstance(failure, AgentFailure) and failure.limit == "max_file_bytes"
    assert failure.reason.startswith("workspace rejected: file 'huge.bin' has 2147483648 bytes")


def test_total_bytes_cap(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path, WorkspaceLimits(max_total_bytes=1000, max_file_bytes=600))
    for i in range(3):
        (ws.path / f"f{i}").write_bytes(b"x" * 500)
    with pytest.raises(WorkspaceLimitExceeded) as info:
        ws.diff()
    assert info.value.limit == "max_total_bytes"


def test_too_many_files_stops_the_walk_early(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    (ws.path / "many").mkdir()
    for i in range(500):
        (ws.path / "many" / f"f{i}").write_text("")
    meter = TreeMeter(WorkspaceLimits(max_entries=50))
    with pytest.raises(WorkspaceLimitExceeded) as info:
        scan_tree(ws.path, meter=meter)
    assert info.value.limit == "max_entries"
    assert meter.stats.entries == 51  # stopped at the first entry over the cap
    ws.limits = WorkspaceLimits(max_entries=50)
    failure = safe_submission(ws)
    assert isinstance(failure, AgentFailure) and "more than" in failure.reason


def test_caps_count_only_what_the_agent_adds(base: Path, tmp_path: Path) -> None:
    tight = WorkspaceLimits(max_entries=2, max_total_bytes=10, max_file_bytes=5, max_depth=0)
    ws = workspace(base, tmp_path, tight)
    assert ws.diff() == ""  # the baseline alone passes every cap
    (ws.path / "a").write_text("1234")
    (ws.path / "b").write_text("1234")
    assert "+1234" in ws.diff()
    (ws.path / "c").write_text("1")
    with pytest.raises(WorkspaceLimitExceeded):
        ws.diff()
    assert isinstance(safe_diff(base, ws.path, tight), AgentFailure)
    assert isinstance(safe_diff(base, ws.path, None), str)


def test_path_longer_than_path_max_is_the_agents_failure(base: Path, tmp_path: Path,
                                                       cleanup: None) -> None:
    ws = workspace(base, tmp_path)
    fd = os.open(ws.path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(30):  # 30 x 201 bytes: far beyond PATH_MAX (4096)
            os.mkdir("n" * 200, dir_fd=fd)
            new = os.open("n" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = new
        with open(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
            fh.write("x")
    finally:
        os.close(fd)
    with pytest.raises(WorkspaceLimitExceeded) as info:
        ws.diff()
    assert info.value.limit == "max_path_bytes"
    ws.limits = UNLIMITED
    with pytest.raises(AgentWorkspaceError) as exc:
        ws.diff()
    assert "path too long" in exc.value.reason
    ws.close()  # removal never builds a long path
    assert not ws.path.exists()


def test_remove_tree_handles_read_only_and_unsearchable_dirs(tmp_path: Path) -> None:
    root = tmp_path / "t"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f").write_text("x")
    os.symlink("/etc", root / "a" / "etc")
    os.chmod(root / "a" / "b", 0)
    os.chmod(root / "a", 0o500)
    os.chmod(root, 0o500)
    remove_tree(root)
    assert not root.exists()
    assert Path("/etc").is_dir()
    remove_tree(root)  # a missing tree is not an error


def test_git_dirs_in_any_case_are_not_content(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    for name in (".GIT", "sub/.Git", "git~1", ".git."):
        (ws.path / name).mkdir(parents=True)
        (ws.path / name / "config").write_text("x\n")
    patch = round_trip(ws, tmp_path)
    assert ".GIT" not in patch and ".Git" not in patch and "git~1/config" in patch
    assert ws.skipped == []


def test_setuid_bits_are_not_copied(base: Path, tmp_path: Path) -> None:
    ws = workspace(base, tmp_path)
    (ws.path / "suid").write_text("#!/bin/sh\n")
    os.chmod(ws.path / "suid", 0o4755)
    copy_tree(ws.path, tmp_path / "copy")
    assert (tmp_path / "copy" / "suid").stat().st_mode & 0o7777 == 0o755


def test_diff_trees_applies_caps_to_the_changed_side_only(base: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed"
    copy_tree(base, changed)
    (changed / "x").write_text("x\n")
    skipped: list[str] = []
    os.mkfifo(changed / "p")
    assert "+x" in diff_trees(base, changed, WorkspaceLimits(max_entries=2), skipped=skipped)
    assert skipped == ["'p' (fifo)"]
    with pytest.raises(WorkspaceLimitExceeded):
        diff_trees(base, changed, WorkspaceLimits(max_entries=1))


def test_file_rewritten_during_diff_is_the_agents_failure(base: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from reqbench.core.workspace import changes

    ws = workspace(base, tmp_path)
    (ws.path / "new.txt").write_text("one\n")
    real = changes.changed_refs

    def scan_then_rewrite(record: object, root: Path, *args: object, **kwargs: object) -> object:
        out = real(record, root, *args, **kwargs)  # type: ignore[arg-type]
        if Path(root) == ws.path:
            (ws.path / "new.txt").write_text("two\n")
        return out

    monkeypatch.setattr("reqbench.core.workspace.workspace.changed_refs", scan_then_rewrite)
    with pytest.raises(AgentWorkspaceError) as info:
        ws.diff()
    assert not isinstance(info.value, HarnessError)
    assert "changed while the diff was computed" in info.value.reason
