"""`ObjectStore`: a private git object store that reqbench writes itself, and diffs with one `git diff-tree`.

A diff is computed between two *restricted* trees that hold only the paths whose blob or mode differ
(without rename detection every path's diff is independent of the others, so the patch equals the
whole-tree diff). Blobs and tree objects are written in Python in git's loose-object format; the only
subprocess per diff is ``git diff-tree`` (plus a second one when some path needs the binary pass), so
the cost follows what changed, not the size of the tree, and no ``git init``, ``update-index`` or
``write-tree`` process is spawned.

Paths git itself would refuse in an index (`refused`, the rule of git's ``verify_path`` with
``core.protectNTFS``/``core.protectHFS`` off: a symlink with a ``.gitmodules`` component, any letter
case) are left out of the tree and listed in `dropped`, exactly as ``git update-index`` did before.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace.fileio import open_regular, read_chunks, read_link
from reqbench.core.workspace.git import git_env, init_bare, run_git
from reqbench.core.workspace.limits import show


@dataclass(frozen=True)
class BlobRef:
    """A tree entry hashed as a git blob (content not yet stored)."""

    mode: str
    sha: str
    path: Path
    size: int = 0
    rel: str = ""


def link_data(ref: BlobRef) -> bytes:
    return os.fsencode(read_link(ref.path, ref.rel))


def _file_chunks(ref: BlobRef) -> Iterator[bytes]:
    fd = open_regular(ref.path, ref.rel)
    try:
        yield from read_chunks(fd, ref.size, ref.rel)
    finally:
        os.close(fd)


def _blob_chunks(ref: BlobRef) -> tuple[int, Iterator[bytes]]:
    """Size and streamed content of the blob `ref` stands for (a symlink's blob is its target)."""
    if ref.mode == "120000":
        data = link_data(ref)
        return len(data), iter((data,))
    return ref.size, _file_chunks(ref)


def blob_sha(ref: BlobRef) -> str:
    size, chunks = _blob_chunks(ref)
    h = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def refused(rel: str, mode: str) -> bool:
    """True for a path ``git update-index`` refuses (git's ``verify_path``/``verify_dotfile``): with NTFS
    and HFS protection off that is a symlink with a ``.gitmodules`` component in any letter case (``.git``
    components never reach a tree: `trees.is_ignored`)."""
    return mode == "120000" and any(part.lower() == ".gitmodules" for part in rel.split("/"))


def _decodes(decoder: codecs.IncrementalDecoder, chunk: bytes, final: bool = False) -> bool:
    try:
        decoder.decode(chunk, final)
        return True
    except UnicodeDecodeError:
        return False


class ObjectStore:
    """A private bare git repository used only to hold blobs and trees and compute diffs.

    Only the blobs of the paths that differ are stored, so diffing a large tree after a small edit writes
    a handful of objects. Patches are always valid UTF-8 text: a changed path whose name or content (on
    either side) is not UTF-8 is diffed in a second pass where every file is binary (``GIT binary
    patch``, base85) and names are C-quoted with octal escapes; every other path keeps the readable
    unified diff.
    """

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self.dropped: list[str] = []
        """Paths of the last `diff`'s entries that git would refuse in a tree (they are not in the patch)."""
        if not (self.git_dir / "objects").is_dir():
            init_bare(self.git_dir, {"binary.attributes": "* binary\n"})

    def _object_path(self, sha: str) -> Path:
        return self.git_dir / "objects" / sha[:2] / sha[2:]

    def _write_object(self, kind: bytes, body: bytes) -> str:
        data = kind + b" %d\0" % len(body) + body
        sha = hashlib.sha1(data, usedforsecurity=False).hexdigest()
        path = self._object_path(sha)
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(zlib.compress(data, 1))
            os.replace(tmp, path)
        return sha

    def _store_blob(self, ref: BlobRef) -> bool:
        """Store the blob of `ref` (streamed, checked against its id); True when its bytes are UTF-8."""
        path = self._object_path(ref.sha)
        size, chunks = _blob_chunks(ref)
        decoder = codecs.getincrementaldecoder("utf-8")()
        text = True
        if path.exists():
            for chunk in chunks:
                text = text and _decodes(decoder, chunk)
            return text and _decodes(decoder, b"", final=True)
        path.parent.mkdir(exist_ok=True)
        sha = hashlib.sha1(usedforsecurity=False)
        fd, tmp = tempfile.mkstemp(dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                zobj = zlib.compressobj(1)
                header = b"blob %d\0" % size
                sha.update(header)
                fh.write(zobj.compress(header))
                for chunk in chunks:
                    sha.update(chunk)
                    fh.write(zobj.compress(chunk))
                    text = text and _decodes(decoder, chunk)
                fh.write(zobj.flush())
            if sha.hexdigest() != ref.sha:
                raise AgentWorkspaceError(f"file changed while the diff was computed: {show(ref.rel)}")
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return text and _decodes(decoder, b"", final=True)

    def write_tree(self, entries: dict[str, BlobRef]) -> str:
        """Write the tree object(s) for `entries` (blobs may be missing) and return the root id.

        Iterative (deepest directories first), so any depth the walk admitted is fine."""
        listing: dict[bytes, list[tuple[bytes, bytes, bytes]]] = {b"": []}
        for rel, ref in entries.items():
            if refused(rel, ref.mode):
                continue
            parent, _, name = os.fsencode(rel).rpartition(b"/")
            listing.setdefault(parent, []).append((name, ref.mode.encode(), bytes.fromhex(ref.sha)))
            while parent:
                parent = parent.rpartition(b"/")[0]
                if parent in listing:
                    break
                listing[parent] = []
        root = ""
        for directory in sorted(listing, key=lambda d: -d.count(b"/") if d else 1):
            # git orders tree entries by name, a directory's name compared as if it ended in '/'.
            items = sorted(listing[directory], key=lambda e: e[0] + b"/" if e[1] == b"40000" else e[0])
            sha = self._write_object(b"tree", b"".join(mode + b" " + name + b"\0" + raw
                                                       for name, mode, raw in items))
            if not directory:
                root = sha
                continue
            parent, _, name = directory.rpartition(b"/")
            listing[parent].append((name, b"40000", bytes.fromhex(sha)))
        return root

    def _diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef], *, binary: bool) -> str:
        config = ["core.quotepath=true", f"core.attributesFile={self.git_dir / 'binary.attributes'}"]
        out = run_git(["diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--no-color",
                       "--no-ext-diff", "--no-textconv", self.write_tree(base), self.write_tree(new)],
                      git_env(self.git_dir), config=config if binary else [])
        return out.stdout.decode("utf-8", "surrogateescape")

    def diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef]) -> str:
        """Git-style patch from the tree `base` to the tree `new` (binary-safe, no renames, UTF-8)."""
        self.dropped = sorted({rel for side in (base, new) for rel, ref in side.items() if refused(rel, ref.mode)})
        changed, odd = set(), set()
        for rel in set(base) | set(new):
            old_ref, new_ref = base.get(rel), new.get(rel)
            if old_ref is not None and new_ref is not None and (old_ref.sha, old_ref.mode) == (
                    new_ref.sha, new_ref.mode):
                continue
            changed.add(rel)
            if not is_utf8(os.fsencode(rel)):
                odd.add(rel)
            for ref in (old_ref, new_ref):
                if ref is not None and not self._store_blob(ref):
                    odd.add(rel)
        patch = ""
        for paths, binary in ((changed - odd, False), (odd, True)):
            if paths:
                patch += self._diff({r: base[r] for r in paths if r in base},
                                    {r: new[r] for r in paths if r in new}, binary=binary)
        return patch
