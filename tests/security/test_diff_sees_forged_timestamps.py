"""Red team: a workspace diff reads only entries whose stat changed, so an agent that edits a file and then
puts back its size, mtime and inode must still have its edit in the diff (the kernel-set ctime gives it
away; `core.workspace.changes`). The agent is a real sandboxed shell script; a second case forges the
same way from the harness side within the same clock tick as the copy (a racily clean entry)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reqbench.core.sandbox import run_sandboxed
from reqbench.core.workspace import apply_patch, copy_tree, materialize, tree_hash

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

# Same length, same inode (dd conv=notrunc writes in place), mtime and atime restored from a saved copy.
FORGER = """
cp -p pkg/mod.py /tmp/stamp
printf 'VALUE = 666\\n' | dd of=pkg/mod.py conv=notrunc status=none
touch -r /tmp/stamp pkg/mod.py
chmod 644 pkg/mod.py
"""


def _base(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "pkg").mkdir(parents=True)
    (base / "pkg" / "mod.py").write_text("VALUE = 111\n")
    for i in range(50):
        (base / "pkg" / f"other{i}.py").write_text(f"x = {i}\n")
    return base


def _assert_seen(ws_path: Path, base: Path, patch: str, tmp_path: Path) -> None:
    assert "-VALUE = 111" in patch and "+VALUE = 666" in patch
    rebuilt = tmp_path / "rebuilt"
    copy_tree(base, rebuilt)
    apply_patch(rebuilt, patch)
    assert tree_hash(rebuilt) == tree_hash(ws_path)


def test_sandboxed_agent_restoring_size_mtime_and_inode_is_still_diffed(tmp_path: Path) -> None:
    base = _base(tmp_path)
    ws = materialize(base, tmp_path / "ws")
    target = ws.path / "pkg" / "mod.py"
    before = os.lstat(target)
    proc = run_sandboxed(FORGER, ws.path, timeout=60)
    assert proc.exit_code == 0, proc.stderr
    after = os.lstat(target)
    # the forgery worked on everything userspace can set
    assert (after.st_size, after.st_mtime_ns, after.st_ino, after.st_mode) == (
        before.st_size, before.st_mtime_ns, before.st_ino, before.st_mode)
    assert target.read_text() == "VALUE = 666\n"
    _assert_seen(ws.path, base, ws.diff(), tmp_path)
    assert (base / "pkg" / "mod.py").read_text() == "VALUE = 111\n"
    ws.close()


def test_edit_in_the_same_clock_tick_as_the_copy_is_still_diffed(tmp_path: Path) -> None:
    base = _base(tmp_path)
    ws = materialize(base, tmp_path / "ws")
    target = ws.path / "pkg" / "mod.py"
    before = os.lstat(target)
    fd = os.open(target, os.O_WRONLY)
    try:
        os.pwrite(fd, b"VALUE = 666\n", 0)
    finally:
        os.close(fd)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    _assert_seen(ws.path, base, ws.diff(), tmp_path)
    ws.close()
