"""File-tree operations a journey session needs, on top of `reqbench.core.workspace`.

The assistant's *workspace* is a private copy of the instance's base repository; nothing else of the
instance (hidden tests, checklist, patches) is ever copied into it. Hidden tests run on *snapshots*
(copies taken after a turn, outside the workspace) through `reqbench.core.checks`.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.workspace import (
    AgentWorkspaceError,
    PatchApplyError,
    WorkspaceLimits,
    apply_patch,
    copy_tree,
    diff_trees,
    materialize,
    remove_tree,
    tree_hash,
)
from reqbench.core.workspace.patch_paths import display_path, patch_paths

__all__ = ["PatchApplyError", "apply_patch", "changed_files", "copy_tree", "diff_trees", "make_workspace",
           "snapshot", "tree_hash"]


def make_workspace(repo_dir: Path, dest: Path) -> Path:
    """A fresh, writable workspace holding a copy of the base repository only (`materialize`)."""
    if dest.exists():
        remove_tree(dest)
    return materialize(repo_dir, dest).path


def snapshot(tree: Path, dest: Path, limits: WorkspaceLimits | None = None) -> Path:
    """A copy of `tree` at `dest` (same tree rules as diffs and hashes; special files are left out).

    With `limits` (for the assistant's workspace) a tree over a cap raises `WorkspaceLimitExceeded`
    (an `AgentWorkspaceError`) and nothing is left at `dest`.
    """
    try:
        copy_tree(tree, dest, limits)
    except AgentWorkspaceError:
        remove_tree(dest)
        raise
    return dest


def changed_files(diff_text: str) -> list[str]:
    """Files a git-style diff touches (`core.workspace.patch_paths`: new path, a deletion's old path, both
    sides of a rename), as valid UTF-8 text for the session record (`display_path`)."""
    return [display_path(p) for p in patch_paths(diff_text)]
