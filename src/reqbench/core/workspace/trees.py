"""Walking, hashing and copying file trees under one set of rules, safe on agent-controlled trees.

A *tree* is the set of regular files and symlinks below a root, keyed by their POSIX relative path.
Three kinds of entry never belong to a tree: ``.git`` in any letter case (version-control metadata, and
possibly history an agent must not see; git itself refuses such paths), ``__pycache__`` directories and
``*.pyc`` files (byte-code caches any test run creates). Empty directories carry no content and are not
part of a tree (as in git). FIFOs, sockets and device files are not content either: they are never
opened, and each walk records them in its `TreeStats.skipped`. Every tree operation (copy, hash, diff)
uses the same walk, so they always agree on what a tree is.

The walk is iterative (any depth), never follows symlinks, takes names as bytes (a non-UTF-8 name is a
surrogate-escaped str, as `os.fsdecode` gives it), streams file contents, and counts itself against
`WorkspaceLimits` through a `TreeMeter`, stopping at the first cap passed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from reqbench.core.workspace.fileio import (
    agent_error,
    copy_file,
    list_dir,
    open_regular,
    read_chunks,
    read_link,
    remove_tree,
)
from reqbench.core.workspace.limits import TreeMeter, TreeStats, WorkspaceLimits

__all__ = ["IGNORED_DIRS", "Raw", "TreeEntry", "copy_tree", "is_ignored", "remove_tree", "special_kind", "tree_hash",
           "tree_stats", "walk_raw", "walk_tree"]

IGNORED_DIRS = frozenset({".git", "__pycache__"})
IGNORED_SUFFIXES = (".pyc",)
_SPECIAL = ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
            (stat.S_ISBLK, "block device"))


def special_kind(mode: int) -> str:
    """What a non-content entry is, for `TreeStats.skipped` (``fifo``, ``socket``, ...)."""
    return next((k for test, k in _SPECIAL if test(mode)), "special file")


def is_ignored(name: str, is_dir: bool) -> bool:
    """True for names that are never part of a tree (``.git`` in any case, ``__pycache__``, ``*.pyc``)."""
    if name.lower() == ".git":
        return True
    if is_dir:
        return name in IGNORED_DIRS
    return name.endswith(IGNORED_SUFFIXES)


@dataclass(frozen=True)
class TreeEntry:
    """One file of a tree: `kind` is ``file`` or ``link``; `executable` is the owner exec bit."""

    relpath: str
    path: Path
    kind: str
    executable: bool = False
    size: int = 0


class Raw(NamedTuple):
    """One entry as the walk saw it, with its `lstat` result (a tuple: the walk makes one per entry)."""

    rel: str
    path: str
    kind: str  # dir | file | link
    mode: int
    size: int
    st: os.stat_result


def walk_raw(root: Path, meter: TreeMeter) -> Iterator[Raw]:
    """Every directory, file and symlink below `root` (pre-order, no recursion, links not followed)."""
    stack: list[tuple[str, str, int]] = [(os.fspath(root), "", 0)]
    while stack:
        directory, prefix, depth = stack.pop()
        for entry in list_dir(directory, prefix.rstrip("/")):
            rel = prefix + entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise agent_error(exc, rel) from None
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                if is_ignored(entry.name, True):
                    continue
                meter.directory(rel, depth + 1)
                yield Raw(rel, entry.path, "dir", mode, 0, st)
                stack.append((entry.path, rel + "/", depth + 1))
            elif is_ignored(entry.name, False):
                continue
            elif stat.S_ISLNK(mode):
                meter.entry(rel)
                yield Raw(rel, entry.path, "link", mode, 0, st)
            elif stat.S_ISREG(mode):
                meter.file(rel, st.st_size)
                yield Raw(rel, entry.path, "file", mode, st.st_size, st)
            else:
                meter.special(rel, special_kind(mode))


def walk_tree(root: Path, limits: WorkspaceLimits | None = None, *,
              meter: TreeMeter | None = None) -> Iterator[TreeEntry]:
    """Yield every file and symlink below `root`, sorted by relative path (links are not followed).

    `limits` (or a caller's `meter`, which also collects `TreeStats`) caps the walk; passing a cap raises
    `WorkspaceLimitExceeded` before the walk goes on. Special files are skipped and recorded.
    """
    meter = meter or TreeMeter(limits)
    entries = [TreeEntry(r.rel, Path(r.path), r.kind, bool(r.mode & stat.S_IXUSR), r.size)
               for r in walk_raw(Path(root), meter) if r.kind != "dir"]
    entries.sort(key=lambda e: e.relpath)
    yield from entries


def tree_stats(root: Path) -> TreeStats:
    """Entry count, bytes, largest file and depth of the tree below `root` (no contents are read)."""
    meter = TreeMeter()
    for _ in walk_raw(Path(root), meter):
        pass
    return meter.stats


def tree_hash(path: Path, limits: WorkspaceLimits | None = None) -> str:
    """sha256 over the tree below `path`: sorted relative paths, kind, exec bit and bytes.

    Ignores ``.git``, ``__pycache__`` and ``*.pyc`` (see module docstring). Symlinks contribute their
    target text, never the file they point to. Contents are streamed.
    """
    h = hashlib.sha256()
    for entry in walk_tree(Path(path), limits):
        if entry.kind == "link":
            digest = hashlib.sha256(os.fsencode(read_link(entry.path, entry.relpath))).digest()
            tag = b"l"
        else:
            digest = file_sha256(entry)
            tag = b"x" if entry.executable else b"f"
        h.update(tag + b"\0" + os.fsencode(entry.relpath) + b"\0")
        h.update(digest)
    return h.hexdigest()


def file_sha256(entry: TreeEntry) -> bytes:
    fd = open_regular(entry.path, entry.relpath)
    try:
        h = hashlib.sha256()
        for chunk in read_chunks(fd, entry.size, entry.relpath):
            h.update(chunk)
        return h.digest()
    finally:
        os.close(fd)


def copy_tree(src: Path, dest: Path, limits: WorkspaceLimits | None = None, *,
              meter: TreeMeter | None = None, record: dict[str, os.stat_result] | None = None) -> None:
    """Copy the tree below `src` to the new directory `dest`: real copies, never hard links.

    Symlinks are copied as symlinks (their targets are not followed); special files are not copied.
    Permission bits are kept (setuid/setgid/sticky dropped), with owner read/write (and search, for
    directories) added so the copy is usable whatever the source's modes. Empty directories are kept.
    Passing a cap of `limits` raises `WorkspaceLimitExceeded`; `dest` is then left partially written
    for the caller to remove. With `record`, the `lstat` of every file and symlink written (as left by the
    copy) is stored under its relative path (`changes` uses it to find what was changed later).
    """
    src, dest = Path(src), Path(dest)
    meter = meter or TreeMeter(limits)
    dest.mkdir(parents=True, exist_ok=False)
    top = os.fspath(dest)
    for raw in walk_raw(src, meter):
        target = os.path.join(top, raw.rel)
        if raw.kind == "dir":
            os.mkdir(target, 0o700)
            os.chmod(target, (raw.mode & 0o777) | stat.S_IRWXU)
            continue
        if raw.kind == "link":
            os.symlink(read_link(raw.path, raw.rel), target)
        else:
            copy_file(raw.path, target, raw.rel, raw.size)
            os.chmod(target, (raw.mode & 0o777) | stat.S_IRUSR | stat.S_IWUSR)
        if record is not None:
            record[raw.rel] = os.lstat(target)
