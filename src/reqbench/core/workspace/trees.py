"""Walking, hashing and copying file trees under one set of rules.

A *tree* is the set of regular files and symlinks below a root, keyed by their POSIX relative path.
Three kinds of entry never belong to a tree: ``.git`` (version-control metadata, and possibly history
an agent must not see), ``__pycache__`` directories and ``*.pyc`` files (byte-code caches any test run
creates). Empty directories carry no content and are not part of a tree (as in git). Every tree
operation (copy, hash, diff) uses `walk_tree`, so they always agree on what a tree is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

IGNORED_DIRS = frozenset({".git", "__pycache__"})
IGNORED_SUFFIXES = (".pyc",)


def is_ignored(name: str, is_dir: bool) -> bool:
    """True for names that are never part of a tree (``.git``, ``__pycache__``, ``*.pyc``)."""
    if name == ".git":
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


def walk_tree(root: Path) -> Iterator[TreeEntry]:
    """Yield every file and symlink below `root` (sorted by relative path; links are not followed).

    Sockets, FIFOs and device files are not content and are skipped.
    """
    root = Path(root)

    def _walk(directory: Path, prefix: str) -> Iterator[TreeEntry]:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            is_dir = stat.S_ISDIR(st.st_mode)
            if is_ignored(entry.name, is_dir):
                continue
            rel = f"{prefix}{entry.name}"
            if is_dir:
                yield from _walk(Path(entry.path), rel + "/")
            elif stat.S_ISLNK(st.st_mode):
                yield TreeEntry(rel, Path(entry.path), "link")
            elif stat.S_ISREG(st.st_mode):
                yield TreeEntry(rel, Path(entry.path), "file", bool(st.st_mode & stat.S_IXUSR))

    yield from sorted(_walk(root, ""), key=lambda e: e.relpath)


def tree_hash(path: Path) -> str:
    """sha256 over the tree below `path`: sorted relative paths, kind, exec bit and bytes.

    Ignores ``.git``, ``__pycache__`` and ``*.pyc`` (see module docstring). Symlinks contribute their
    target text, never the file they point to.
    """
    h = hashlib.sha256()
    for entry in walk_tree(Path(path)):
        if entry.kind == "link":
            data = os.readlink(entry.path).encode("utf-8", "surrogateescape")
            tag = b"l"
        else:
            data = entry.path.read_bytes()
            tag = b"x" if entry.executable else b"f"
        h.update(tag + b"\0" + entry.relpath.encode("utf-8", "surrogateescape") + b"\0")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def copy_tree(src: Path, dest: Path) -> None:
    """Copy the tree below `src` to the new directory `dest`: real copies, never hard links.

    Symlinks are copied as symlinks (their targets are not followed). Permission bits are kept, with
    the owner write bit added so the copy is writable whatever the source's modes.
    """
    src, dest = Path(src), Path(dest)
    dest.mkdir(parents=True, exist_ok=False)
    _copy_dir(src, dest)


def _copy_dir(src: Path, dest: Path) -> None:
    with os.scandir(src) as it:
        entries = list(it)
    for entry in entries:
        st = entry.stat(follow_symlinks=False)
        is_dir = stat.S_ISDIR(st.st_mode)
        if is_ignored(entry.name, is_dir):
            continue
        target = os.path.join(dest, entry.name)
        if is_dir:
            os.mkdir(target)
            _copy_dir(Path(entry.path), Path(target))
            os.chmod(target, stat.S_IMODE(st.st_mode) | stat.S_IRWXU)
        elif stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(entry.path), target)
        elif stat.S_ISREG(st.st_mode):
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            os.chmod(target, stat.S_IMODE(st.st_mode) | stat.S_IWUSR | stat.S_IRUSR)


def remove_tree(path: Path) -> None:
    """Remove a directory tree, making read-only directories writable first (agents chmod things)."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return

    def _onerror(func, p, _exc):  # type: ignore[no-untyped-def]
        try:
            os.chmod(os.path.dirname(p), stat.S_IRWXU)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, stat.S_IRWXU)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=_onerror)
