"""In-process ``git apply`` for plain text patches, with git itself as the fallback for everything else.

**Invariant: for every patch, `apply_text` either leaves the workspace exactly as ``git apply`` (as
`patches.apply_patch` runs it) would, or it writes nothing and returns False, and the caller runs git.**
Deferring is always safe, so the rules below refuse anything where git could behave differently.

Accepted: a patch that is, from its first line to its last, a sequence of git file sections, each a
plain text change of one regular file, exactly as ``git diff``/``git diff-tree -p`` print them::

    diff --git a/P b/P
    [new file mode M | deleted file mode M]      (M: 100644 or 100755)
    index HEX..HEX[ M]                           (the mode only, and always, for a modification)
    --- a/P | /dev/null                          (both lines absent for an empty file added or deleted)
    +++ b/P | /dev/null
    @@ -a[,b] +c[,d] @@[ anything]               (one or more hunks, counts consistent with the body)
    ' ' / '-' / '+' lines, each optionally followed by "\\ No newline at end of file"

Every path is the same in all four places, distinct from every other path in the patch, relative,
normalised (no empty, ``.`` or ``..`` component), without a ``.git`` component, and printable without
quoting (no space, control character, quote or backslash; UTF-8). Each hunk must match, line for line
(terminators included), at the position git tries first (``c - 1`` in the file as the earlier hunks left
it; the start for ``a`` of 0 or 1, the end for a hunk without trailing context) and must not touch a
line an earlier hunk wrote; an added file's hunks add only, a deleted file's delete everything. In the
workspace, every directory on the way is a real directory (no symlink, no other file; an added file's
missing directories are created), a modified or deleted file is a regular file with the executable bit
the patch names, and an added path does not exist.

Under those rules git's outcome is known: it finds each hunk where it first looks, so the new contents
computed here are git's. Writing then follows git's two phases: first every deleted file is unlinked
(and its directories, while they become empty) and every modified file is unlinked, then every added or
modified file is created anew (``O_EXCL``, mode 0666 or 0777 under the umask, missing directories 0777),
so modes, new inodes and removed directories come out as git leaves them. All new contents are computed
before the first write; a refusal writes nothing. Every walk is by directory descriptor with
``O_NOFOLLOW``, so no write goes through a symlink even if one appears after the checks.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.workspace.fileio import write_all

MAX_PATCH_BYTES = 4 << 20
MAX_FILE_BYTES = 16 << 20
NO_NEWLINE = b"\\ No newline at end of file"

_HEADER = re.compile(rb"diff --git a/(\S+) b/(\S+)")
_MODE = rb"(100644|100755)"
_NEW = re.compile(rb"new file mode " + _MODE)
_DELETED = re.compile(rb"deleted file mode " + _MODE)
_HEX = rb"[0-9a-f]{7,40}"
_INDEX_MODIFY = re.compile(rb"index " + _HEX + rb"\.\." + _HEX + rb" " + _MODE)
_INDEX_NEW = re.compile(rb"index 0{7,40}\.\." + _HEX)
_INDEX_DELETED = re.compile(rb"index " + _HEX + rb"\.\.0{7,40}")
_HUNK = re.compile(rb"@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@(?: .*)?")


class Defer(Exception):
    """The patch is not one this module applies; git must."""


@dataclass
class Hunk:
    old_start: int
    new_start: int
    old: list[bytes] = field(default_factory=list)
    new: list[bytes] = field(default_factory=list)
    trailing: int = 0
    changes: int = 0


@dataclass
class Section:
    path: bytes
    kind: str  # "add", "delete" or "modify"
    mode: str
    hunks: list[Hunk]


def apply_text(workspace: Path, data: bytes) -> bool:
    """Apply the patch `data` (bytes, ending in a newline) to `workspace` in process; False (nothing
    written) when git must apply it instead. Raises OSError only for a write that fails midway."""
    try:
        sections = parse_patch(data)
        root = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (Defer, OSError):
        return False
    try:
        try:
            results = [_check(root, section) for section in sections]
        except (Defer, OSError):
            return False
        _write(root, sections, results)
    finally:
        os.close(root)
    return True


# ---------------------------------------------------------------------------------------------------
# Parsing


def _safe_path(raw: bytes) -> bytes:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Defer from None
    if any(c <= 0x20 or c in (0x22, 0x5C, 0x7F) for c in raw):
        raise Defer
    for part in raw.split(b"/"):
        low = part.lower()
        if part in (b"", b".", b"..") or low.rstrip(b". ") == b".git" or low == b"git~1":
            raise Defer
    return raw


def parse_patch(data: bytes) -> list[Section]:
    """The file sections of `data`, or `Defer` unless all of it follows the grammar of the docstring."""
    if len(data) > MAX_PATCH_BYTES or not data.endswith(b"\n") or b"\0" in data:
        raise Defer
    lines = data[:-1].split(b"\n")
    while lines and not lines[-1]:
        lines.pop()  # blank lines after the last section: git skips them as garbage between headers
    sections: list[Section] = []
    seen: set[bytes] = set()
    i = 0
    while i < len(lines):
        section, i = _section(lines, i)
        if section.path in seen:
            raise Defer
        seen.add(section.path)
        sections.append(section)
    if not sections:
        raise Defer
    paths = sorted(seen)
    for a, b in zip(paths, paths[1:], strict=False):
        if b.startswith(a + b"/"):
            raise Defer  # a file and a directory of the same name: git's ordering rules, not ours
    return sections


def _line(lines: list[bytes], i: int) -> bytes:
    return lines[i] if i < len(lines) else b""


def _section(lines: list[bytes], i: int) -> tuple[Section, int]:
    m = _HEADER.fullmatch(_line(lines, i))
    if m is None or m.group(1) != m.group(2):
        raise Defer
    path = _safe_path(m.group(1))
    i += 1
    if (m := _NEW.fullmatch(_line(lines, i))) is not None:
        kind, mode, index = "add", m.group(1).decode(), _INDEX_NEW
        i += 1
    elif (m := _DELETED.fullmatch(_line(lines, i))) is not None:
        kind, mode, index = "delete", m.group(1).decode(), _INDEX_DELETED
        i += 1
    else:
        kind, mode, index = "modify", "", _INDEX_MODIFY
    m = index.fullmatch(_line(lines, i))
    if m is None:
        raise Defer
    if kind == "modify":
        mode = m.group(1).decode()
    i += 1
    hunks: list[Hunk] = []
    if i < len(lines) and not lines[i].startswith(b"diff --git "):
        old_name = b"/dev/null" if kind == "add" else b"a/" + path
        new_name = b"/dev/null" if kind == "delete" else b"b/" + path
        if _line(lines, i) != b"--- " + old_name or _line(lines, i + 1) != b"+++ " + new_name:
            raise Defer
        i += 2
        while i < len(lines) and lines[i].startswith(b"@@"):
            hunk, i = _hunk(lines, i)
            if kind == "add" and hunk.old or kind == "delete" and hunk.new:
                raise Defer
            hunks.append(hunk)
        if not hunks:
            raise Defer
    elif kind == "modify":
        raise Defer
    return Section(path, kind, mode, hunks), i


def _hunk(lines: list[bytes], i: int) -> tuple[Hunk, int]:
    m = _HUNK.fullmatch(lines[i])
    if m is None:
        raise Defer
    old_left = int(m.group(2)) if m.group(2) is not None else 1
    new_left = int(m.group(4)) if m.group(4) is not None else 1
    hunk = Hunk(int(m.group(1)), int(m.group(3)))
    i += 1
    while old_left > 0 or new_left > 0:
        if i >= len(lines):
            raise Defer
        line = lines[i]
        tag, body = line[:1], line[1:] + b"\n"
        if _line(lines, i + 1) == NO_NEWLINE:
            body = body[:-1]
        if tag == b" ":
            hunk.old.append(body)
            hunk.new.append(body)
            old_left, new_left = old_left - 1, new_left - 1
            hunk.trailing += 1
        elif tag == b"-":
            hunk.old.append(body)
            old_left -= 1
            hunk.trailing, hunk.changes = 0, hunk.changes + 1
        elif tag == b"+":
            hunk.new.append(body)
            new_left -= 1
            hunk.trailing, hunk.changes = 0, hunk.changes + 1
        else:
            raise Defer
        if old_left < 0 or new_left < 0:
            raise Defer
        i += 2 if not body.endswith(b"\n") else 1
    if not hunk.changes:
        raise Defer
    return hunk, i


# ---------------------------------------------------------------------------------------------------
# Checking against the workspace, and the new contents


def _walk(root: int, parts: list[bytes], *, missing_ok: bool) -> int | None:
    """An fd on the directory `parts` below `root` (every step a real directory, never a symlink); None
    when a step is missing and `missing_ok`. `Defer` for anything else."""
    fd = os.dup(root)
    try:
        for part in parts:
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if missing_ok:
                    os.close(fd)
                    return None
                raise Defer from None
            if not stat.S_ISDIR(st.st_mode):
                raise Defer
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check(root: int, section: Section) -> bytes | None:
    """The new content of `section`'s file (None for a deletion), or `Defer`."""
    *dirs, name = section.path.split(b"/")
    parent = _walk(root, dirs, missing_ok=section.kind == "add")
    if parent is None:
        old = b""
    else:
        try:
            old = _existing(parent, name, section)
        finally:
            os.close(parent)
    new = apply_hunks(split_lines(old), section.hunks)
    if section.kind == "delete":
        if new:
            raise Defer
        return None
    return new


def _existing(parent: int, name: bytes, section: Section) -> bytes:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        if section.kind == "add":
            return b""
        raise Defer from None
    if section.kind == "add" or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
        raise Defer
    if bool(st.st_mode & stat.S_IXUSR) != (section.mode == "100755"):
        raise Defer  # git would warn and apply the patch's mode: its business
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Defer
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def split_lines(data: bytes) -> list[bytes]:
    """`data` as git's image lines: each with its ``\\n``, the last one without when the file lacks it."""
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def apply_hunks(image: list[bytes], hunks: list[Hunk]) -> bytes:
    """git's result of `hunks` on `image`, when each matches exactly where git first looks; else `Defer`."""
    lines = list(image)
    patched = [False] * len(lines)
    for hunk in hunks:
        begin = hunk.old_start in (0, 1)
        end = hunk.trailing == 0
        stated = hunk.new_start - 1 if hunk.new_start else 0
        size = len(hunk.old)
        pos = 0 if begin else (len(lines) - size if end else stated)
        if pos != stated or pos < 0 or pos + size > len(lines) or (end and pos + size != len(lines)):
            raise Defer
        if any(patched[pos:pos + size]) or lines[pos:pos + size] != hunk.old:
            raise Defer
        lines[pos:pos + size] = hunk.new
        patched[pos:pos + size] = [True] * len(hunk.new)
    return b"".join(lines)


# ---------------------------------------------------------------------------------------------------
# Writing, in git's two phases


def _write(root: int, sections: list[Section], results: list[bytes | None]) -> None:
    for section in sections:  # phase 0: deletions (and their emptied directories), modified files' old
        *dirs, name = section.path.split(b"/")
        if section.kind == "add":
            continue
        fds = _chain(root, dirs)
        try:
            os.unlink(name, dir_fd=fds[-1])
            if section.kind == "delete":
                for k in range(len(dirs), 0, -1):
                    try:
                        os.rmdir(dirs[k - 1], dir_fd=fds[k - 1])
                    except OSError:
                        break
        finally:
            for fd in fds:
                os.close(fd)
    for section, content in zip(sections, results, strict=True):  # phase 1: create added and modified
        if content is None:
            continue
        *dirs, name = section.path.split(b"/")
        fds = _chain(root, dirs, create=True)
        try:
            perm = 0o777 if section.mode == "100755" else 0o666
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, perm,
                         dir_fd=fds[-1])
            try:
                write_all(fd, content)
            finally:
                os.close(fd)
        finally:
            for fd in fds:
                os.close(fd)


def _chain(root: int, dirs: list[bytes], *, create: bool = False) -> list[int]:
    """fds of the root and each directory of `dirs` below it (created 0777 when missing and `create`)."""
    fds = [os.dup(root)]
    try:
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        for part in dirs:
            try:
                fds.append(os.open(part, flags, dir_fd=fds[-1]))
                continue
            except FileNotFoundError:
                if not create:
                    raise
            try:
                os.mkdir(part, 0o777, dir_fd=fds[-1])
            except OSError as exc:
                if exc.errno != errno.EEXIST:
                    raise
            fds.append(os.open(part, flags, dir_fd=fds[-1]))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds
