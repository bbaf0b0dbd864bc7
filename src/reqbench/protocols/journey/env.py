"""File-tree operations a journey session needs: workspace, snapshots, diffs, patches, tree hashes.

The assistant's *workspace* is a private copy of the instance's base repository; nothing else of the
instance (hidden tests, checklist, patches) is ever copied into it. Hidden tests run on *snapshots*
(copies of the workspace taken after a turn) that live outside the workspace.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from reqbench.core.errors import HarnessError

_IGNORED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", "*.pyc", ".mypy_cache")
_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache"}


class PatchApplyError(HarnessError):
    """A patch did not apply to a tree."""


def copy_tree(src: Path, dest: Path) -> Path:
    """Copy `src` to a new directory `dest` (caches and VCS metadata left out, symlinks kept)."""
    shutil.copytree(src, dest, symlinks=True, ignore=_IGNORED)
    return dest


def make_workspace(repo_dir: Path, dest: Path) -> Path:
    """A fresh, writable workspace holding a copy of the base repository only."""
    if dest.exists():
        shutil.rmtree(dest)
    return copy_tree(repo_dir, dest)


def _files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if not name.endswith(".pyc"):
                out.append(Path(dirpath, name))
    return out


def tree_hash(root: Path) -> str:
    """Content address of a tree: sha256 over sorted (relative path, file sha256, executable bit)."""
    h = hashlib.sha256()
    for path in _files(root):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            digest = "link:" + os.readlink(path)
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        mode = "x" if os.access(path, os.X_OK) and not path.is_symlink() else "-"
        h.update(f"{rel}\0{digest}\0{mode}\n".encode())
    return h.hexdigest()


def _git_env(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_CEILING_DIRECTORIES"] = str(cwd.parent)
    env.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    return env


def diff_trees(old: Path, new: Path) -> str:
    """A unified git-style diff from tree `old` to tree `new` (paths relative to the tree roots)."""
    old, new = old.resolve(), new.resolve()
    base = Path(os.path.commonpath([old, new]))
    a_rel, b_rel = old.relative_to(base).as_posix(), new.relative_to(base).as_posix()
    proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "--binary", a_rel, b_rel],
                          cwd=base, capture_output=True, text=True, env=_git_env(base))
    if proc.returncode not in (0, 1):
        raise HarnessError(f"git diff failed: {proc.stderr.strip()}")
    text = proc.stdout
    for prefix, rel in (("a/", a_rel), ("b/", b_rel)):
        text = text.replace(f"{prefix}{rel}/", prefix)
    return text


def changed_files(diff_text: str) -> list[str]:
    """Files a unified git diff touches (new path; deletions by their old path)."""
    out: list[str] = []
    for line in diff_text.splitlines():
        if line.startswith("diff --git "):
            parts = line.split(" b/", 1)
            if len(parts) == 2:
                out.append(parts[1].strip())
    return list(dict.fromkeys(out))


def apply_patch(tree: Path, patch_text: str) -> None:
    """Apply a unified diff (``a/`` ``b/`` prefixes) to `tree`; raise `PatchApplyError` if it fails."""
    if not patch_text.strip():
        return
    proc = subprocess.run(["git", "apply", "--whitespace=nowarn", "-p1", "-"], cwd=tree, input=patch_text,
                          capture_output=True, text=True, env=_git_env(tree))
    if proc.returncode != 0:
        raise PatchApplyError(f"patch does not apply: {proc.stderr.strip().splitlines()[:1]}")
