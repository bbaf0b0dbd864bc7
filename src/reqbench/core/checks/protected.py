"""Protected paths: files a submission must not change for a check (conftest.py, ini files, ...), restored
from the base tree before the check runs, and recorded when the submission touched them."""

from __future__ import annotations

import functools
import os
import re
import shutil
from pathlib import Path


@functools.lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A workspace-relative glob as a regex over posix relative paths: ``**/`` any directories,
    ``/**`` everything below, ``*`` and ``?`` within one path component."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out, i = out + "(?:/.*)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _entries(root: Path) -> dict[str, tuple[str, bytes]]:
    """Relative posix path -> (kind, content) of every file and symlink below `root` (links not
    followed; bytecode caches and ``.git`` skipped, as `copy_tree` drops them). One ``scandir`` per
    directory: the kinds come from the directory entries, not a ``stat`` per path."""
    found: dict[str, tuple[str, bytes]] = {}
    if not root.is_dir():
        return found
    pending = [("", os.fspath(root))]
    while pending:
        prefix, directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_symlink():
                    found[rel] = ("link", os.fsencode(os.readlink(entry.path)))
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name not in ("__pycache__", ".git"):
                        pending.append((rel + "/", entry.path))
                elif entry.is_file(follow_symlinks=False) and not entry.name.endswith(".pyc"):
                    found[rel] = ("file", b"")
            except OSError:
                continue
    return found


def _same(a: Path, b: Path, kind: str) -> bool:
    if kind == "link":
        return os.readlink(a) == os.readlink(b)
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def _safe_parent(root: Path, rel: str) -> Path:
    """Create the directories of `rel` below `root`, replacing any symlink or file in the way, so a
    restored file can never be written outside `root`."""
    current = root
    for part in Path(rel).parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            current.unlink()
        if not current.exists():
            current.mkdir()
    return current


def restore_protected(snapshot: Path, base: Path, patterns: list[str] | tuple[str, ...]) -> list[str]:
    """Make every path of `snapshot` matching `patterns` identical to `base` (restored if changed or
    removed, deleted if new). Returns the relative paths that differed, sorted."""
    regexes = [glob_regex(p) for p in patterns]
    snap, orig = _entries(snapshot), _entries(base)
    touched: list[str] = []
    for rel in sorted(set(snap) | set(orig)):
        if not any(r.fullmatch(rel) for r in regexes):
            continue
        s, o = snap.get(rel), orig.get(rel)
        if s is not None and o is not None and s[0] == o[0] and _same(snapshot / rel, base / rel, s[0]):
            continue
        touched.append(rel)
        target = snapshot / rel
        if s is not None:
            target.unlink()
        if o is not None:
            target = _safe_parent(snapshot, rel) / Path(rel).name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            if o[0] == "link":
                os.symlink(os.readlink(base / rel), target)
            else:
                shutil.copyfile(base / rel, target)
    return touched


# ---------------------------------------------------------------------------------------------------
# The guard's evidence channel
