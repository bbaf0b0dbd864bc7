"""Diffs that read only what changed: the Python-written git trees equal git's own, and the stat record of
`materialize` finds every kind of change (and nothing for a file that was only touched)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reqbench.core.workspace import materialize
from reqbench.core.workspace.git import git_env, init_bare, run_git
from reqbench.core.workspace.objects import BlobRef, ObjectStore

NAMES = ["a.b", "a/x", "a-b", "a0", "b/c/d/e", "b/c.d", "Z", "sp ace", "\u00e9t\u00e9", "a/.gitmodules"]


def test_tree_ids_equal_gits_write_tree(tmp_path: Path) -> None:
    blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty blob
    entries = {name: BlobRef("100755" if name == "Z" else "100644", blob, tmp_path / "unused", 0, name)
               for name in NAMES}
    entries["link"] = BlobRef("120000", entries["Z"].sha, tmp_path / "unused", 0, "link")
    entries["q/.GitModules"] = BlobRef("120000", entries["Z"].sha, tmp_path / "unused", 0, "q/.GitModules")
    ours = ObjectStore(tmp_path / "ours.git").write_tree(entries)
    git_dir = init_bare(tmp_path / "theirs.git")
    env = git_env(git_dir, index=tmp_path / "index")
    lines = b"".join(f"{ref.mode} {ref.sha}\t".encode() + os.fsencode(rel) + b"\0" for rel, ref in entries.items())
    proc = run_git(["update-index", "-z", "--index-info"], env, input=lines)
    assert b"q/.GitModules" in proc.stderr  # git refuses it; the store leaves it out the same way
    theirs = run_git(["write-tree", "--missing-ok"], env).stdout.decode().strip()
    assert ours == theirs


def test_diff_finds_edit_add_delete_chmod_and_ignores_a_touch(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "d").mkdir(parents=True)
    for name in ("keep", "touch", "edit", "gone", "mode", "d/deep"):
        (base / name).write_text(f"{name}\n")
    ws = materialize(base, tmp_path / "ws")
    os.utime(ws.path / "touch", ns=(1, 1))
    (ws.path / "edit").write_text("edited\n")
    (ws.path / "gone").unlink()
    os.chmod(ws.path / "mode", 0o755)
    (ws.path / "d" / "new").write_text("new\n")
    patch = ws.diff()
    heads = [line for line in patch.splitlines() if line.startswith("diff --git")]
    assert heads == ["diff --git a/d/new b/d/new", "diff --git a/edit b/edit", "diff --git a/gone b/gone",
                     "diff --git a/mode b/mode"]
    assert "old mode 100644\nnew mode 100755" in patch
    assert "-edit\n+edited" in patch
    ws.close()


def test_untouched_workspace_diff_is_empty_and_writes_no_object(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "f").write_text("f\n")
    os.chmod(base / "f", stat.S_IRUSR)
    ws = materialize(base, tmp_path / "ws")
    assert ws.diff() == ""
    assert ws.meta is not None and not (ws.meta / "objects.git" / "objects").exists()  # nothing written
    (ws.path / "f").write_text("g\n")
    assert "+g" in ws.diff()  # in process: still no object on disk
    assert not (ws.meta / "objects.git" / "objects").exists()
    ws.close()
