"""Which paths a patch touches: the one parser of patch file headers every protocol uses.

Semantics (`patch_files`, `patch_paths`):

* A patch is a sequence of file sections. A git section starts at ``diff --git``; a plain unified diff
  section at a ``--- OLD`` line followed by ``+++ NEW``. Hunk bodies are skipped by their line counts, so a
  removed line reading ``-- x`` (``--- x`` in the patch) is content, never a header.
* Each section yields one `FileChange(old, new, binary)`. ``old`` is None for a created file, ``new`` is
  None for a deleted one (``/dev/null`` is never a path). A rename or copy has both; so does a modified
  file (then ``old == new``). ``binary`` marks ``Binary files ... differ`` and ``GIT binary patch``
  sections, which carry no ``---``/``+++`` lines: their paths come from the ``diff --git`` header.
* Names: the ``a/``/``b/`` prefixes are removed from header and ``---``/``+++`` names (never from
  ``rename from``/``copy from`` names, which git writes without them); git's C-style quoting
  (``"a/caf\\303\\251.py"``, ``"b/tab\\there"``) is decoded, bytes as UTF-8 (undecodable bytes kept as
  surrogate escapes); the tab git appends after a name containing a space, and a timestamp after a tab in
  a plain unified diff, are dropped. An unquoted header with spaces (``diff --git a/x y b/x y``) is split
  where both sides name the same path; for renames the ``rename from``/``rename to`` lines decide.
* `patch_paths` flattens the changes: every old and new path, in order of first appearance, each once. A
  rename therefore lists both its old and its new path, a deletion its old path.
* Paths keep undecodable bytes as surrogate escapes, so they name the real files (`os.fsencode`);
  `display_path` turns one into valid UTF-8 text (``\\xNN`` for such bytes) for results and JSON.

A hand-written parser rather than the ``unidiff`` package: ``unidiff`` 1.0 rejects git's tab-terminated
names (any path with a space) and the rules above need git's quoting and header logic anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
DEV_NULL = "/dev/null"


@dataclass(frozen=True)
class FileChange:
    """One file section of a patch: its old and new path (None when the file is created / deleted)."""

    old: str | None
    new: str | None
    binary: bool = False

    @property
    def paths(self) -> list[str]:
        """The section's distinct paths, old first."""
        return list(dict.fromkeys(p for p in (self.old, self.new) if p is not None))


def unquote(name: str) -> str:
    """A git C-quoted name (``"..."`` with backslash and octal escapes) decoded; other names unchanged."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    out = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 == len(body):
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1] in _ESCAPES:
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        elif re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
            out.append(int(body[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            out += body[i + 1].encode("utf-8", "surrogateescape")
            i += 2
    return out.decode("utf-8", "surrogateescape")


def _name(raw: str, prefix: str | None) -> str | None:
    """A ``---``/``+++``/header name: unquoted, tab suffix dropped, `prefix` removed; None for /dev/null."""
    raw = raw.rstrip("\n")
    if raw.startswith('"'):
        end = _closing_quote(raw)
        raw = raw[:end + 1] if end > 0 else raw
    elif "\t" in raw:
        raw = raw.split("\t", 1)[0]
    name = unquote(raw.strip() if not raw.startswith('"') else raw)
    if name == DEV_NULL:
        return None
    if prefix and name.startswith(prefix):
        name = name[len(prefix):]
    return name


def _closing_quote(text: str) -> int:
    """Index of the quote closing the C-quoted string starting at ``text[0]`` (-1 if unterminated)."""
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _header_names(rest: str) -> tuple[str | None, str | None]:
    """Old and new path of ``diff --git REST`` (see the module docstring for unquoted names with spaces)."""
    if rest.startswith('"'):
        end = _closing_quote(rest)
        first, second = rest[:end + 1], rest[end + 1:].strip()
        return _name(first, "a/"), _name(second, "b/")
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return _name(rest[:start], "a/"), _name(rest[start + 1:], "b/")
    if rest.startswith("a/"):
        body = rest[2:]
        half = (len(body) - 3) // 2  # "X b/X": the same name on both sides
        if len(body) % 2 == 1 and body[half:half + 3] == " b/" and body[:half] == body[half + 3:]:
            return body[:half], body[:half]
    old, sep, new = rest.partition(" b/")
    return (_name(old, "a/"), new) if sep else (None, None)


def patch_files(patch: str) -> list[FileChange]:
    """Every file section of `patch`, in order (semantics in the module docstring)."""
    lines = patch.splitlines()
    changes: list[FileChange] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            i = _git_section(lines, i, changes)
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            changes.append(FileChange(_name(line[4:], "a/"), _name(lines[i + 1][4:], "b/")))
            i = _skip_hunks(lines, i + 2)
        else:
            i += 1
    return changes


def _git_section(lines: list[str], i: int, changes: list[FileChange]) -> int:
    """Parse the git section starting at ``lines[i]``; append its change; return the next line index."""
    old, new = _header_names(lines[i][len("diff --git "):])
    created = deleted = binary = False
    i += 1
    while i < len(lines) and not lines[i].startswith("diff --git "):
        line = lines[i]
        if line.startswith(("rename from ", "copy from ")):
            old = _name(line.split(" from ", 1)[1], None)
        elif line.startswith(("rename to ", "copy to ")):
            new = _name(line.split(" to ", 1)[1], None)
        elif line.startswith("new file mode"):
            created = True
        elif line.startswith("deleted file mode"):
            deleted = True
        elif line.startswith(("Binary files ", "GIT binary patch")):
            binary = True
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _name(line[4:], "a/"), _name(lines[i + 1][4:], "b/")
            i = _skip_hunks(lines, i + 2)
            continue
        i += 1
    changes.append(FileChange(None if created else old, None if deleted else new, binary))
    return i


def _skip_hunks(lines: list[str], i: int) -> int:
    """Index of the first line after the hunks starting at ``lines[i]`` (bodies skipped by their counts)."""
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if m is None:
            return i
        old_left = int(m.group(1)) if m.group(1) is not None else 1
        new_left = int(m.group(2)) if m.group(2) is not None else 1
        i += 1
        while i < len(lines) and (old_left > 0 or new_left > 0):
            tag = lines[i][:1]
            if tag in (" ", ""):
                old_left, new_left = old_left - 1, new_left - 1
            elif tag == "-":
                old_left -= 1
            elif tag == "+":
                new_left -= 1
            elif tag != "\\":
                break
            i += 1
        while i < len(lines) and lines[i].startswith("\\"):
            i += 1
    return i


def display_path(path: str) -> str:
    """`path` as valid UTF-8 text: an undecodable byte (a surrogate escape) becomes ``\\xNN``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def patch_paths(patch: str) -> list[str]:
    """Every path `patch` touches (old and new side), in order of first appearance, each once."""
    return list(dict.fromkeys(p for change in patch_files(patch) for p in change.paths))
