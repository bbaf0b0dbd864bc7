"""In-process unified diffs of small UTF-8 text changes, in the exact layout ``git diff-tree -p`` prints.

`text_patch` is the common case of `objects.ObjectStore.diff`: when every changed path is a regular file
(mode 100644/100755, unchanged, or the file is added or deleted) whose content is UTF-8 without NUL on
both sides, whose name is UTF-8 and needs no C-quoting, and the change is small (`MAX_BYTES` read in all,
`MAX_LINES` lines per file, `MAX_EDITS` line edits per file) and git's choice of lines is certain
(below), the patch is written here without storing objects and without a git process. Anything else
returns None and the caller diffs the *whole* change set with git (never a mix of the two).

Same as git (``--full-index --no-renames``, 3 lines of context, default ``funcname`` rule):
``diff --git``/``new file mode``/``deleted file mode``/``index <full sha>..<full sha>[ <mode>]`` lines,
``---``/``+++`` names (``/dev/null``; a tab after a name with a space), no ``---``/``+++`` for an empty
file added or deleted, ``@@`` headers (a count of 1 omitted, the start of an empty side one line
earlier), the nearest earlier line of the old file that starts with a letter, ``_`` or ``$`` after the
``@@`` (cut at 80 bytes, trailing white space dropped), changes at most 6 lines apart in one hunk,
``\\ No newline at end of file``, files in git's path order (byte order of the full path).

The lines a change consists of are git's too, because the patch is written here only when git's
choice is certain; otherwise None. git's xdiff trims the common prefix and suffix, then searches the
middle for a minimal edit script; below an edit cost of 256 (`MAX_EDITS`) that search is exact, so when
the two middles have exactly one longest-common-subsequence alignment (counted by dynamic programming,
`_unique_alignment`) git finds that one. xdiff leaves out of its search a line that occurs too often in
the other file (``xdl_bogosqrt`` of its line count); a shared line that frequent defers. Last, git slides
a run of changed lines that can move by a line (its first line equal to the line after it, or its last
to the line before it) to the place its indent heuristic prefers: such a run defers too. What defers is
typically an edit whose alignment is ambiguous because of repeated lines (which blank line of an
inserted function is the new one); an edit of distinct lines is written here. A patch written here is
byte for byte the one git writes (``tests/core/test_workspace_textpatch_random.py`` compares every case
with git).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace import diffmemo
from reqbench.core.workspace.fileio import open_regular, read_chunks
from reqbench.core.workspace.limits import show
from reqbench.core.workspace.textapply import split_lines

if TYPE_CHECKING:
    from reqbench.core.workspace.objects import BlobRef

MAX_BYTES = 256 * 1024
"""Most bytes (old and new sides of every changed file together) diffed in process."""
MAX_LINES = 5000
"""Most lines per side of one file diffed in process."""
MAX_EDITS = 200
"""Most line insertions plus deletions per file (below xdiff's 256, where its search is exact)."""
MAX_CELLS = 40_000
"""Most (old lines x new lines) between the first and the last change of one file (the search is quadratic)."""
_MAX_EQLIMIT = 1024
CONTEXT = 3
TEXT_MODES = ("100644", "100755")
ZERO = "0" * 40
_FUNC_BYTES = 80
_HEADER_BYTES = 128


@dataclass(frozen=True)
class _Side:
    mode: str
    sha: str
    data: bytes
    digest: str


def plain_name(rel: str) -> bool:
    """True for a path git prints as it is (with ``core.quotepath=false``): UTF-8, no control character,
    no DEL, no ``"`` or backslash."""
    try:
        raw = os.fsencode(rel)
        raw.decode("utf-8")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return False
    return bool(raw) and not any(c < 0x20 or c in (0x22, 0x5C, 0x7F) for c in raw)


Sides = list[tuple[str, "_Side | None", "_Side | None"]]


def text_patch(base: Mapping[str, BlobRef], new: Mapping[str, BlobRef], changed: set[str]) -> str | None:
    """The patch for the paths `changed` between `base` and `new`, or None when git must compute it.
    A section git already wrote for the same path and contents (`diffmemo`) is reused as it is."""
    sides = read_sides(base, new, changed)
    if sides is None:
        return None
    parts = []
    for rel, old_side, new_side in sides:
        part = diffmemo.recall(_key(rel, old_side, new_side)) or file_patch(rel, old_side, new_side)
        if part is None:
            return None
        parts.append(part)
    return b"".join(parts).decode("utf-8", "surrogateescape")


def remember(base: Mapping[str, BlobRef], new: Mapping[str, BlobRef], changed: set[str], patch: str) -> None:
    """File each section of `patch` (git's text pass for exactly `changed`) in `diffmemo`, when every
    path is one `text_patch` could write; a file rewritten meanwhile is simply not filed."""
    try:
        sides = read_sides(base, new, changed)
    except AgentWorkspaceError:
        return
    if sides is None:
        return
    data = patch.encode("utf-8", "surrogateescape")
    sections = [b"diff --git " + part for part in data.split(b"\ndiff --git ")]
    sections[0] = sections[0][len(b"diff --git "):]
    sections = [part + b"\n" for part in sections[:-1]] + sections[-1:]  # the split took their last newline
    if len(sections) != len(sides):
        return
    for (rel, _, _), section in zip(sides, sections, strict=True):
        name = os.fsencode(rel)
        if not section.startswith(b"diff --git a/%s b/%s\n" % (name, name)):
            return
    for (rel, old_side, new_side), section in zip(sides, sections, strict=True):
        diffmemo.store(_key(rel, old_side, new_side), section)


def _key(rel: str, old: _Side | None, new: _Side | None) -> diffmemo.Key:
    return (rel, old.mode if old else "", old.digest if old else "", new.mode if new else "",
            new.digest if new else "")


def read_sides(base: Mapping[str, BlobRef], new: Mapping[str, BlobRef], changed: set[str]) -> Sides | None:
    """Both contents of every changed path in git's path order, or None unless each is a regular file of
    NUL-free UTF-8 text with an unchanged mode and a plain name, and all of it within `MAX_BYTES`."""
    total = 0
    for rel in changed:
        old_ref, new_ref = base.get(rel), new.get(rel)
        if not plain_name(rel):
            return None
        for ref in (old_ref, new_ref):
            if ref is not None:
                if ref.mode not in TEXT_MODES or ref.text is False:
                    return None
                total += ref.size
        if old_ref is not None and new_ref is not None and old_ref.mode != new_ref.mode:
            return None
    if total > MAX_BYTES:
        return None
    sides: Sides = []
    for rel in sorted(changed, key=os.fsencode):
        old_side, new_side = _read(base.get(rel)), _read(new.get(rel))
        if old_side is False or new_side is False:
            return None
        assert not isinstance(old_side, bool) and not isinstance(new_side, bool)
        sides.append((rel, old_side, new_side))
    return sides


def _read(ref: BlobRef | None) -> _Side | None | bool:
    """The content of `ref` (None for a missing side; False when it is not NUL-free UTF-8). The content is
    re-hashed: a file rewritten since it was hashed is the agent's error, as on the git path."""
    if ref is None:
        return None
    fd = open_regular(ref.path, ref.rel)
    try:
        data = b"".join(read_chunks(fd, ref.size, ref.rel))
    finally:
        os.close(fd)
    if hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest() != ref.sha:
        raise AgentWorkspaceError(f"file changed while the diff was computed: {show(ref.rel)}")
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _Side(ref.mode, ref.sha, data, hashlib.sha256(data).hexdigest())


def file_patch(rel: str, old: _Side | None, new: _Side | None) -> bytes | None:
    """One file's section of the patch (None when it is beyond the in-process caps)."""
    name = os.fsencode(rel)
    out = [b"diff --git a/%s b/%s\n" % (name, name)]
    if old is None and new is not None:
        out.append(b"new file mode %s\nindex %s..%s\n" % (new.mode.encode(), ZERO.encode(), new.sha.encode()))
    elif new is None and old is not None:
        out.append(b"deleted file mode %s\nindex %s..%s\n" % (old.mode.encode(), old.sha.encode(), ZERO.encode()))
    elif old is not None and new is not None:
        out.append(b"index %s..%s %s\n" % (old.sha.encode(), new.sha.encode(), new.mode.encode()))
    a = split_lines(old.data if old else b"")
    b = split_lines(new.data if new else b"")
    if not a and not b:
        return b"".join(out)
    if len(a) > MAX_LINES or len(b) > MAX_LINES:
        return None
    hunks = unified_hunks(a, b)
    if hunks is None:
        return None
    tab = b"\t" if b" " in name else b""
    out.append(b"--- a/%s%s\n" % (name, tab) if old else b"--- /dev/null\n")
    out.append(b"+++ b/%s%s\n" % (name, tab) if new else b"+++ /dev/null\n")
    out.extend(hunks)
    return b"".join(out)


def unified_hunks(a: list[bytes], b: list[bytes]) -> list[bytes] | None:
    """The hunks turning lines `a` into lines `b` (None when git's own choice is not certain)."""
    changes = edit_groups(a, b)
    if changes is None:
        return None
    out: list[bytes] = []
    func: bytes = b""
    searched = -1
    i = 0
    while i < len(changes):
        j = i
        while j + 1 < len(changes) and changes[j + 1][0] - (changes[j][0] + changes[j][2]) <= 2 * CONTEXT:
            j += 1
        first, last = changes[i], changes[j]
        s1, s2 = max(first[0] - CONTEXT, 0), max(first[1] - CONTEXT, 0)
        tail = min(CONTEXT, len(a) - (last[0] + last[2]), len(b) - (last[1] + last[3]))
        e1, e2 = last[0] + last[2] + tail, last[1] + last[3] + tail
        for line_no in range(s1 - 1, searched, -1):
            found = _func_name(a[line_no])
            if found is not None:
                func = found
                break
        searched = s1 - 1
        out.append(_hunk_header(s1, e1 - s1, s2, e2 - s2, func))
        pos1 = s1
        for k in range(i, j + 1):
            i1, i2, n1, n2 = changes[k]
            out.extend(_body(b" ", a[pos1:i1]))
            out.extend(_body(b"-", a[i1:i1 + n1]))
            out.extend(_body(b"+", b[i2:i2 + n2]))
            pos1 = i1 + n1
        out.extend(_body(b" ", a[pos1:e1]))
        i = j + 1
    return out


def _body(tag: bytes, lines: list[bytes]) -> Iterator[bytes]:
    for line in lines:
        yield tag + line if line.endswith(b"\n") else tag + line + b"\n\\ No newline at end of file\n"


def _func_name(line: bytes) -> bytes | None:
    """git's default ``funcname``: a line starting with an ASCII letter, ``_`` or ``$``, cut at 80 bytes,
    trailing white space (space, tab, CR, LF) dropped."""
    if not line or not (line[:1].isalpha() and line[0] < 0x80 or line[:1] in (b"_", b"$")):
        return None
    return line[:_FUNC_BYTES].rstrip(b" \t\r\n")


def _hunk_header(s1: int, c1: int, s2: int, c2: int, func: bytes) -> bytes:
    def rng(start: int, count: int) -> bytes:
        first = b"%d" % (start + 1 if count else start)
        return first if count == 1 else first + b",%d" % count

    head = b"@@ -" + rng(s1, c1) + b" +" + rng(s2, c2) + b" @@"
    if func:
        head += b" " + func[:_HEADER_BYTES - len(head) - 2]
    return head + b"\n"


def edit_groups(a: list[bytes], b: list[bytes]) -> list[tuple[int, int, int, int]] | None:
    """Change groups ``(i1, i2, deleted, inserted)`` turning `a` into `b`, in order, when git's are known
    without running its search (the module docstring says when); None otherwise."""
    n, m = len(a), len(b)
    p = 0
    while p < n and p < m and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and s < m - p and a[n - 1 - s] == b[m - 1 - s]:
        s += 1
    a_mid, b_mid = a[p:n - s], b[p:m - s]
    if len(a_mid) * len(b_mid) > MAX_CELLS:
        return None
    shared = set(a_mid) & set(b_mid)
    if shared:
        count_a, count_b = Counter(a), Counter(b)
        lim_a, lim_b = _bogosqrt(n), _bogosqrt(m)
        if any(count_b[line] >= lim_a or count_a[line] >= lim_b for line in shared):
            return None  # xdiff may leave such a line out of its search
    flags = _unique_alignment(a_mid, b_mid)
    if flags is None:
        return None
    ca = [False] * p + flags[0] + [False] * s
    cb = [False] * p + flags[1] + [False] * s
    if _slides(a, ca) or _slides(b, cb):
        return None
    groups = []
    i1 = i2 = 0
    while i1 < n or i2 < m:
        if (i1 < n and ca[i1]) or (i2 < m and cb[i2]):
            s1, s2 = i1, i2
            while i1 < n and ca[i1]:
                i1 += 1
            while i2 < m and cb[i2]:
                i2 += 1
            groups.append((s1, s2, i1 - s1, i2 - s2))
        else:
            i1 += 1
            i2 += 1
    return groups


def _unique_alignment(a: list[bytes], b: list[bytes]) -> tuple[list[bool], list[bool]] | None:
    """Which lines of `a` and of `b` are changed under the only longest common subsequence alignment, or
    None when there are several (each an equally minimal script git might pick) or too many edits."""
    n, m = len(a), len(b)
    if not n or not m:
        return [True] * n, [True] * m
    length = [[0] * (m + 1) for _ in range(n + 1)]
    count = [[1] * (m + 1) for _ in range(n + 1)]  # distinct alignments of that length, capped at 2
    for i in range(1, n + 1):
        row, up = length[i], length[i - 1]
        crow, cup = count[i], count[i - 1]
        line = a[i - 1]
        for j in range(1, m + 1):
            if line == b[j - 1]:
                row[j] = up[j - 1] + 1
                total = cup[j - 1]
            else:
                row[j] = up[j] if up[j] >= row[j - 1] else row[j - 1]
                total = 0
            if up[j] == row[j]:
                total += cup[j]
            if row[j - 1] == row[j]:
                total += crow[j - 1]
            if up[j - 1] == row[j]:
                total -= cup[j - 1]
            crow[j] = min(total, 2)
    if count[n][m] != 1 or n + m - 2 * length[n][m] > MAX_EDITS:
        return None
    ca, cb = [True] * n, [True] * m
    i, j = n, m
    while i and j:
        if a[i - 1] == b[j - 1] and length[i][j] == length[i - 1][j - 1] + 1:
            i, j = i - 1, j - 1
            ca[i] = cb[j] = False
        elif length[i - 1][j] >= length[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return ca, cb


def _bogosqrt(n: int) -> int:
    """xdiff's ``xdl_bogosqrt``: a power of two near the square root of `n` (its "too many matches" limit)."""
    i = 1
    while n > 0:
        i <<= 1
        n >>= 2
    return min(i, _MAX_EQLIMIT)


def _slides(lines: list[bytes], changed: list[bool]) -> bool:
    """True when some run of changed lines could move up or down by one line (git would then choose its
    place by its indent heuristic)."""
    k, n = 0, len(lines)
    while k < n:
        if not changed[k]:
            k += 1
            continue
        start = k
        while k < n and changed[k]:
            k += 1
        if (start > 0 and lines[start - 1] == lines[k - 1]) or (k < n and lines[start] == lines[k]):
            return True
    return False
