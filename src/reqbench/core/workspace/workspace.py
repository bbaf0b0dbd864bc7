"""`materialize`: a fresh, private, writable workspace whose writes never reach the source.

The source's pristine tree (`RepoSource.baseline`) is copied file by file into the workspace: real
copies, never hard links, so no edit, chmod, delete or replace inside the workspace can touch a source
file. The workspace's change set is always `diff()` against that baseline, computed by the tree rules
of `trees` (``.git``, ``__pycache__`` and ``*.pyc`` are not part of a tree and are not copied). The copy
keeps a `changes.CopyRecord` (each copied entry's stat signature), so a diff reads only what changed.

With ``overlay=True``, where `overlay.overlay_available` (root, overlayfs) and for a baseline of at least
`OVERLAY_MIN_ENTRIES` entries (below that a copy is cheaper), the baseline is instead
mounted as the read-only lower layer of an overlay in the calling thread's own mount namespace (`overlay`):
materialising is one mount, the diff reads the upper directory only, and closing unmounts it. The merged
view exists for that thread and the processes it starts only, so a caller asks for it where one thread
owns the workspace from start to end (a row); everywhere else, and where overlays are unavailable, the
workspace is a copy (measured beside it in ``benchmarks/bench_workspace.py``).

Bookkeeping (a private git object store used for diffs) lives *beside* the workspace in
``.<name>.reqbench``, never inside it, so a sandboxed agent that may write only its workspace cannot
alter the baseline its diff is computed against.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import HarnessError, InputError
from reqbench.core.kernelpath import kernel_name
from reqbench.core.workspace.changes import CopyRecord, changed_refs, record_copy
from reqbench.core.workspace.discard import discard
from reqbench.core.workspace.git import git_env, run_git
from reqbench.core.workspace.limits import DEFAULT_LIMITS, TreeMeter, TreeStats, WorkspaceLimits
from reqbench.core.workspace.objects import BlobRef, ObjectStore
from reqbench.core.workspace.overlay import (
    OverlayMount,
    mount_overlay,
    overlay_available,
    overlay_changes,
    remove_meta,
)
from reqbench.core.workspace.patches import Submission, apply_patch, scan_tree
from reqbench.core.workspace.sources import RepoSource
from reqbench.core.workspace.trees import remove_tree, tree_hash, tree_stats


@dataclass
class Workspace:
    """A private writable tree (`path`) made from the pristine tree `base`.

    `path` is the agent's: `diff` walks it under `limits` (on top of what the baseline holds) and raises
    `WorkspaceLimitExceeded` / `AgentWorkspaceError` for what cannot be delivered; `skipped` lists the
    special files the last `diff` left out.
    """

    path: Path
    base: Path
    source: RepoSource | None = None
    meta: Path | None = None
    limits: WorkspaceLimits = DEFAULT_LIMITS
    skipped: list[str] = field(default_factory=list)
    _base_entries: dict[str, BlobRef] | None = field(default=None, repr=False)
    _base_stats: TreeStats | None = field(default=None, repr=False)
    _record: CopyRecord | None = field(default=None, repr=False)
    _overlay: OverlayMount | None = field(default=None, repr=False)

    @property
    def overlay(self) -> bool:
        """True when the workspace is an overlay (visible only in its thread's mount namespace)."""
        return self._overlay is not None

    def _store(self) -> ObjectStore:
        meta = self.meta or self.path.with_name(f".{self.path.name}.reqbench")
        self.meta = meta
        return ObjectStore(meta / "objects.git")

    def _base(self) -> tuple[dict[str, BlobRef], TreeStats]:
        """The whole baseline, scanned (for a workspace made without a `CopyRecord`)."""
        if self._base_entries is None or self._base_stats is None:
            meter = TreeMeter()
            self._base_entries = scan_tree(self.base, meter=meter)
            self._base_stats = meter.stats
        return self._base_entries, self._base_stats

    def diff(self) -> str:
        """Git-style unified patch from `base` to the workspace as it is now ('' when unchanged).

        With the `CopyRecord` of `materialize`, only entries whose stat changed are read (`changes`); for an
        overlay only the upper directory is read, and the caps bound what it holds (what was written)."""
        if self._overlay is not None:
            self._overlay.check_namespace("diff")
            meter = TreeMeter(self.limits)
            base, new = overlay_changes(self._overlay, meter)
        elif self._record is not None:
            meter = TreeMeter(self.limits.beyond(self._record.stats))
            base, new = changed_refs(self._record, self.path, meter)
        else:
            base, stats = self._base()
            meter = TreeMeter(self.limits.beyond(stats))
            new = scan_tree(self.path, meter=meter)
        store = self._store()
        patch = store.diff(base, new)
        self.skipped = meter.stats.skipped + [f"{p} (refused by git)" for p in store.dropped]
        return patch

    def submission(self) -> Submission:
        """The workspace's change set as a frozen `Submission` (patch + sha256 + skipped entries)."""
        patch = self.diff()
        return Submission.from_patch(patch, tuple(self.skipped))

    def tree_hash(self) -> str:
        if self._overlay is not None:
            self._overlay.check_namespace("tree_hash")
        stats = self._record.stats if self._record else self._base_stats or tree_stats(self.base)
        return tree_hash(self.path, self.limits.beyond(stats))

    def apply(self, patch: str) -> None:
        """Apply `patch` to this workspace (clean apply or `PatchApplyError`, nothing half-applied)."""
        if self._overlay is not None:
            self._overlay.check_namespace("apply")
        apply_patch(self.path, patch)

    def close(self) -> None:
        """Delete the workspace and its bookkeeping (the source and baseline are untouched)."""
        if self._overlay is not None:
            self._overlay.unmount()  # from another namespace: raises, and nothing is removed
            self._overlay = None
            os.rmdir(self.path)
        else:
            discard(self.path)
        if self.meta is not None:
            discard(self.meta)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _inside(child: Path, parent: Path) -> bool:
    """`child` (which need not exist yet) lies at or below the directory `parent`, links resolved.

    The kernel names the directories: `child`'s deepest existing ancestor and `parent` are opened
    (``O_PATH``) and read back through ``/proc/self/fd`` -- three system calls each, where resolving
    both paths took a stat and several string operations per component (twice per row). Without
    ``/proc``, or for a missing tail with ``..`` in it, both paths are resolved the long way."""
    here, tail = os.fspath(child), list[str]()
    while not os.path.lexists(here):
        above = os.path.dirname(here)
        if above == here:
            return False
        here, tail = above, [os.path.basename(here), *tail]
    real_child, real_parent = kernel_name(here), kernel_name(parent)
    if real_child is None or real_parent is None or ".." in tail:
        try:
            child.resolve().relative_to(parent.resolve())
            return True
        except (ValueError, OSError):
            return False
    return real_child == real_parent or real_child.startswith(real_parent.rstrip("/") + "/")


def materialize(source: RepoSource | Path | str, dest: Path, *, git_init: bool = False,
                overlay: bool = False) -> Workspace:
    """Create a fresh private workspace at `dest` (which must not exist, or be an empty directory).

    `source` is a `RepoSource`, or a path (a directory, or an archive by its suffix). Raises
    `InputError` for a missing or malformed source. With `git_init`, the workspace is also a fresh git
    repository with the baseline as its only commit (for agents that expect ``git status``/``git
    diff``); its ``.git`` is not part of the tree, so it never shows in diffs or hashes. With `overlay`,
    the workspace is an overlay of the baseline when `overlay_available` (a copy otherwise): use it
    from the calling thread and the processes it starts only (see the module docstring).
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
    if overlay and overlay_available() and baseline_entries(base) >= OVERLAY_MIN_ENTRIES:
        ws = _overlay_workspace(source, base, dest, git_init)
        if ws is not None:
            return ws
    try:
        record = record_copy(base, dest)
        if git_init:
            _git_init(dest)
    except BaseException:
        remove_tree(dest)
        raise
    return Workspace(path=dest, base=base, source=source, _record=record)


OVERLAY_MIN_ENTRIES = 256
"""Below this many entries a copy is cheaper than mounting and unmounting an overlay
(``benchmarks/bench_workspace.py`` measures both)."""


def baseline_entries(base: Path) -> int:
    """Entries of the baseline tree `base`, counted once per process while its root is unchanged (the
    count only chooses between two correct ways to materialise, so a stale count is harmless)."""
    st = os.stat(base)
    return _entries(str(base), st.st_ino, st.st_mtime_ns)


@functools.lru_cache(maxsize=512)
def _entries(base: str, ino: int, mtime_ns: int) -> int:
    return tree_stats(Path(base)).entries


def _overlay_workspace(source: RepoSource, base: Path, dest: Path, git_init: bool) -> Workspace | None:
    """The overlay workspace, or None (nothing left behind) when this baseline cannot be mounted (e.g. a
    path overlayfs options cannot carry): the caller copies instead."""
    meta = dest.with_name(f".{dest.name}.reqbench")
    remove_tree(meta)
    dest.mkdir()
    ws = Workspace(path=dest, base=base, source=source, meta=meta)
    try:
        try:
            ws._overlay = mount_overlay(base, meta / "overlay", dest)
        except OSError:
            os.rmdir(dest)
            remove_meta(meta)
            return None
        if git_init:
            _git_init(dest)
    except BaseException:
        if ws._overlay is not None:
            ws._overlay.unmount()
            ws._overlay = None
        remove_tree(dest)
        remove_meta(meta)
        raise
    return ws


def _git_init(path: Path) -> None:
    env = {**git_env(path / ".git"), "GIT_AUTHOR_NAME": "reqbench", "GIT_AUTHOR_EMAIL": "reqbench@localhost",
           "GIT_COMMITTER_NAME": "reqbench", "GIT_COMMITTER_EMAIL": "reqbench@localhost",
           "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
    env.pop("GIT_DIR")
    run_git(["init", "-q"], env, cwd=path)
    run_git(["add", "-A", "-f", "--", "."], env, cwd=path)
    run_git(["commit", "-q", "--no-verify", "--allow-empty", "-m", "baseline"], env, cwd=path)
