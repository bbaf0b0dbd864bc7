"""Workspaces: sources -> pristine baselines -> private writable copies, tree hashes, diffs, patches.

Modules: `sources` (RepoSource, cache), `archives` (checked extraction), `trees` (walk, hash, copy),
`fileio` (safe open/read/copy/remove on agent-controlled trees), `limits` (WorkspaceLimits),
`patches` (diff_trees, apply_patch, Submission), `objects` (the private git object store diffs are
computed in), `packs` (its objects as one pack file), `textdiff`/`textapply` (the common case of a diff and
of an apply done in process, git's output or git's outcome exactly), `git` (configuration-free git calls), `changes`
(what changed since a copy, by stat), `overlay` (overlay workspaces in the row thread's own mount
namespace, the change set read from the upper directory), `workspace` (materialize, Workspace), `freezing`
(safe_submission / safe_diff: an agent's unusable workspace as an `AgentFailure`).
"""

from reqbench.core.cache_location import cache_root
from reqbench.core.errors import AgentWorkspaceError, WorkspaceLimitExceeded
from reqbench.core.workspace.archives import extract_archive
from reqbench.core.workspace.freezing import AgentFailure, safe_diff, safe_submission
from reqbench.core.workspace.limits import DEFAULT_LIMITS, UNLIMITED, TreeStats, WorkspaceLimits
from reqbench.core.workspace.patches import PatchApplyError, Submission, apply_patch, diff_trees
from reqbench.core.workspace.sources import RepoSource
from reqbench.core.workspace.trees import copy_tree, remove_tree, tree_hash, tree_stats, walk_tree
from reqbench.core.workspace.workspace import Workspace, materialize

__all__ = [
    "DEFAULT_LIMITS",
    "UNLIMITED",
    "AgentFailure",
    "AgentWorkspaceError",
    "PatchApplyError",
    "RepoSource",
    "Submission",
    "TreeStats",
    "Workspace",
    "WorkspaceLimitExceeded",
    "WorkspaceLimits",
    "apply_patch",
    "cache_root",
    "copy_tree",
    "diff_trees",
    "extract_archive",
    "materialize",
    "remove_tree",
    "safe_diff",
    "safe_submission",
    "tree_hash",
    "tree_stats",
    "walk_tree",
]
