"""Workspaces: sources -> pristine baselines -> private writable copies, tree hashes, diffs, patches.

Modules: `sources` (RepoSource, cache), `archives` (checked extraction), `trees` (walk, hash, copy),
`patches` (diff_trees, apply_patch, Submission), `workspace` (materialize, Workspace).
"""

from reqbench.core.workspace.archives import extract_archive
from reqbench.core.workspace.patches import PatchApplyError, Submission, apply_patch, diff_trees
from reqbench.core.workspace.sources import RepoSource, cache_root
from reqbench.core.workspace.trees import copy_tree, remove_tree, tree_hash, walk_tree
from reqbench.core.workspace.workspace import Workspace, materialize

__all__ = [
    "PatchApplyError",
    "RepoSource",
    "Submission",
    "Workspace",
    "apply_patch",
    "cache_root",
    "copy_tree",
    "diff_trees",
    "extract_archive",
    "materialize",
    "remove_tree",
    "tree_hash",
    "walk_tree",
]
