"""Shared helpers for the in-process diff/apply tests: exact tree snapshots, and both code paths side by side."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from reqbench.core.workspace import diffmemo
from reqbench.core.workspace.objects import ObjectStore
from reqbench.core.workspace.patches import PatchApplyError, apply_patch, scan_tree
from reqbench.core.workspace.textapply import apply_text
from reqbench.core.workspace.textdiff import text_patch

Snapshot = dict[str, tuple[int, int, bytes | str | None]]


def snapshot(root: Path) -> Snapshot:
    """Every entry below `root` (directories too): type, permission bits, content or link target."""
    out: Snapshot = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            body: bytes | str | None = None
            if stat.S_ISREG(st.st_mode):
                body = Path(path).read_bytes()
            elif stat.S_ISLNK(st.st_mode):
                body = os.readlink(path)
            out[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), body)
    return out


def diffs(base: Path, new: Path) -> tuple[str | None, str]:
    """(the in-process patch, or None when it defers; git's patch) from tree `base` to tree `new`."""
    old_refs, new_refs = scan_tree(base), scan_tree(new)
    changed = {rel for rel in set(old_refs) | set(new_refs)
               if (getattr(old_refs.get(rel), "sha", None), getattr(old_refs.get(rel), "mode", None))
               != (getattr(new_refs.get(rel), "sha", None), getattr(new_refs.get(rel), "mode", None))}
    with tempfile.TemporaryDirectory(prefix="reqbench-test-diff-") as tmp:
        git_patch = ObjectStore(Path(tmp) / "o.git").diff(old_refs, new_refs, in_process=False)
    diffmemo.clear()  # the computation itself, not a section git wrote earlier in this process
    return (text_patch(old_refs, new_refs, changed) if changed else ""), git_patch


def git_apply(tree: Path, patch: str) -> str | None:
    """Apply `patch` to `tree` with git only; the error message (without the tree's path), or None."""
    try:
        apply_patch(tree, patch, in_process=False)
    except PatchApplyError as exc:
        return exc.rule
    return None


def encoded(patch: str) -> bytes:
    data = patch.encode("utf-8", "surrogateescape")
    return data if data.endswith(b"\n") else data + b"\n"


def compare_apply(base: Path, patch: str, scratch: Path) -> bool:
    """Apply `patch` to two copies of `base`: in process on one, with git on the other. Asserts the
    invariant (same tree as git, or deferral with nothing written); returns whether it applied in process."""
    mine, theirs = scratch / "mine", scratch / "theirs"
    for tree in (mine, theirs):
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(base, tree, symlinks=True)
    before = snapshot(mine)
    applied = apply_text(mine, encoded(patch))
    error = git_apply(theirs, patch)
    if applied:
        assert error is None, f"applied in process, git refused ({error}):\n{patch}"
        assert snapshot(mine) == snapshot(theirs), patch
    else:
        assert snapshot(mine) == before, patch
    return applied
