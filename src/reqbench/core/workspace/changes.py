"""What changed in a materialised workspace, found by `lstat` instead of by reading every file.

`materialize` copies the baseline and keeps a `CopyRecord`: for every file and symlink it wrote, the
copy's stat signature (size, mtime, ctime, inode, mode) as the copy left it. `changed_refs` walks the
workspace (the same metered walk as every tree operation, so `WorkspaceLimits` still apply to all of
it) and reads only the entries whose signature differs from the record, the new ones and the deleted
ones; the baseline side is read for those paths only. A diff after one edit therefore reads one file
on each side, whatever the size of the tree.

Why the signature includes ``st_ctime``: an agent can put back a file's size and mtime after editing it
(``touch -d``, ``utimensat``), but the kernel sets ctime to the current time on every change of
content, mode or timestamps and no system call lets a process choose it (only changing the system
clock, which needs ``CAP_SYS_TIME``, and the sandbox grants no capability). Replacing a file (rename
over it) changes the inode as well. Symlinks are small and are always re-read.

Racily clean entries (git's term, see ``Documentation/technical/racy-git.txt``): file-system time
stamps are coarse, so a change made within the same clock tick as the copy could leave ctime equal to
the recorded one. The record therefore stores a `stamp`, the newest ctime among the copies it wrote
(same file system and clock); an entry whose recorded ctime is not older than the stamp is always
re-read. Any later change gets a ctime at or after the stamp, so it never matches an older record.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.workspace.limits import TreeMeter, TreeStats
from reqbench.core.workspace.objects import BlobRef
from reqbench.core.workspace.patches import entry_ref
from reqbench.core.workspace.trees import TreeEntry, copy_tree, walk_raw

Signature = tuple[int, int, int, int, int]


def signature(st: os.stat_result) -> Signature:
    """(size, mtime_ns, ctime_ns, inode, mode): what must all stay equal for an entry to be unchanged."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


@dataclass(frozen=True)
class CopyRecord:
    """What `record_copy` saw: the baseline root and its walk's `TreeStats`, and per relative path the
    copy's signature; entries whose ctime is `stamp` or later are racy and always re-read."""

    base: Path
    stats: TreeStats
    copies: dict[str, Signature]
    stamp: int

    def unchanged(self, rel: str, st: os.stat_result) -> bool:
        seen = self.copies.get(rel)
        return (seen is not None and seen[2] < self.stamp and not stat.S_ISLNK(st.st_mode)
                and seen == signature(st))


def record_copy(base: Path, dest: Path) -> CopyRecord:
    """`copy_tree(base, dest)` and the `CopyRecord` of the copy."""
    meter = TreeMeter()
    seen: dict[str, os.stat_result] = {}
    copy_tree(base, dest, meter=meter, record=seen)
    # The newest ctime the copy left is the stamp: every later change gets a ctime at or after it, and
    # entries that have it are racy (same clock tick) and always re-read.
    stamp = max((st.st_ctime_ns for st in seen.values()), default=0)
    return CopyRecord(Path(base), meter.stats, {rel: signature(st) for rel, st in seen.items()}, stamp)


def _entry(root: Path, rel: str, st: os.stat_result) -> TreeEntry | None:
    if stat.S_ISLNK(st.st_mode):
        return TreeEntry(rel, root / rel, "link")
    if stat.S_ISREG(st.st_mode):
        return TreeEntry(rel, root / rel, "file", bool(st.st_mode & stat.S_IXUSR), st.st_size)
    return None


def changed_refs(record: CopyRecord, workspace: Path,
                 meter: TreeMeter) -> tuple[dict[str, BlobRef], dict[str, BlobRef]]:
    """(baseline refs, workspace refs) of every path that may differ: a superset of the real changes,
    to be narrowed by blob id. The workspace is walked under `meter`; its special files and non-UTF-8
    symlinks land in the meter's `skipped`."""
    new: dict[str, BlobRef] = {}
    candidates: set[str] = set()
    present: set[str] = set()
    for raw in walk_raw(Path(workspace), meter):
        if raw.kind == "dir":
            continue
        present.add(raw.rel)
        if record.unchanged(raw.rel, raw.st):
            continue
        candidates.add(raw.rel)
        entry = _entry(Path(workspace), raw.rel, raw.st)
        ref = entry_ref(entry, meter.stats.skipped) if entry is not None else None
        if ref is not None:
            new[raw.rel] = ref
    candidates |= record.copies.keys() - present
    base: dict[str, BlobRef] = {}
    ignored: list[str] = []
    for rel in candidates & record.copies.keys():
        try:
            st = os.lstat(record.base / rel)
        except FileNotFoundError:
            continue
        entry = _entry(record.base, rel, st)
        ref = entry_ref(entry, ignored) if entry is not None else None
        if ref is not None:
            base[rel] = ref
    return base, new
