"""`materialize`: a fresh, private, writable workspace whose writes never reach the source.

The source's pristine tree (`RepoSource.baseline`) is copied file by file into the workspace: real
copies, never hard links, so no edit, chmod, delete or replace inside the workspace can touch a source
file. The workspace's change set is always `diff()` against that baseline, computed by the tree rules
of `trees` (``.git``, ``__pycache__`` and ``*.pyc`` are not part of a tree and are not copied).

Bookkeeping (a private git object store used for diffs) lives *beside* the workspace in
``.<name>.reqbench``, never inside it, so a sandboxed agent that may write only its workspace cannot
alter the baseline its diff is computed against.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import HarnessError, InputError
from reqbench.core.workspace.patches import ObjectStore, Submission, apply_patch
from reqbench.core.workspace.sources import RepoSource
from reqbench.core.workspace.trees import copy_tree, remove_tree, tree_hash


@dataclass
class Workspace:
    """A private writable tree (`path`) made from the pristine tree `base`."""

    path: Path
    base: Path
    source: RepoSource | None = None
    meta: Path | None = None
    _base_tree: str | None = field(default=None, repr=False)

    def _store(self) -> ObjectStore:
        meta = self.meta or self.path.with_name(f".{self.path.name}.reqbench")
        self.meta = meta
        return ObjectStore(meta / "objects.git")

    def diff(self) -> str:
        """Git-style unified patch from `base` to the workspace as it is now ('' when unchanged)."""
        store = self._store()
        if self._base_tree is None:
            self._base_tree = store.write_tree(self.base)
        return store.diff(self._base_tree, store.write_tree(self.path))

    def submission(self) -> Submission:
        """The workspace's change set as a frozen `Submission` (patch + sha256)."""
        return Submission.from_patch(self.diff())

    def tree_hash(self) -> str:
        return tree_hash(self.path)

    def apply(self, patch: str) -> None:
        """Apply `patch` to this workspace (clean apply or `PatchApplyError`, nothing half-applied)."""
        apply_patch(self.path, patch)

    def close(self) -> None:
        """Delete the workspace and its bookkeeping (the source and baseline are untouched)."""
        remove_tree(self.path)
        if self.meta is not None:
            remove_tree(self.meta)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def materialize(source: RepoSource | Path | str, dest: Path) -> Workspace:
    """Create a fresh private workspace at `dest` (which must not exist, or be an empty directory).

    `source` is a `RepoSource`, or a path (a directory, or an archive by its suffix). Raises
    `InputError` for a missing or malformed source.
    """
    if not isinstance(source, RepoSource):
        source = RepoSource.parse(str(source), Path.cwd())
    base = source.baseline()
    dest = Path(dest).absolute()
    if _inside(dest, base):
        raise InputError("workspace destination lies inside the source tree", file=str(dest))
    if dest.exists():
        if not dest.is_dir() or any(dest.iterdir()):
            raise HarnessError(f"workspace destination {dest} exists and is not empty")
        os.rmdir(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        copy_tree(base, dest)
    except BaseException:
        remove_tree(dest)
        raise
    return Workspace(path=dest, base=base, source=source)
