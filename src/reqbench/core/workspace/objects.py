"""`ObjectStore`: a private git object store that reqbench writes itself, and diffs with one `git diff-tree`.

A diff is computed between two *restricted* trees that hold only the paths whose blob or mode differ
(without rename detection every path's diff is independent of the others, so the patch equals the
whole-tree diff). Blobs and tree objects are written in Python in git's loose-object format; the only
subprocess per diff is ``git diff-tree`` (plus a second one when some path needs the binary pass), so
the cost follows what changed, not the size of the tree, and no ``git init``, ``update-index`` or
``write-tree`` process is spawned. The common case (a small change of UTF-8 text files, no mode change or
symlink) needs no git at all: `textdiff` writes the same layout in process, and nothing is stored.

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace.fileio import open_regular, read_chunks, read_link
from reqbench.core.workspace.git import git_env, run_git, shared_repository
from reqbench.core.workspace.limits import show
from reqbench.core.workspace.packs import BLOB, TREE, ObjectChanged, PackObject, write_pack
from reqbench.core.workspace.textdiff import remember, text_patch


@dataclass(frozen=True)
class BlobRef:
    """A tree entry hashed as a git blob (content not yet stored)."""

    mode: str
    sha: str
    path: Path
    size: int = 0
    rel: str = ""
    text: bool | None = None
    """Whether the content is UTF-8 (found while hashing; None: not known yet)."""


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
    return blob_id(ref)[0]


def blob_id(ref: BlobRef) -> tuple[str, bool]:
    """The git blob id of `ref`'s content, and whether that content is UTF-8 (one read)."""
    size, chunks = _blob_chunks(ref)
    h = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    decoder = codecs.getincrementaldecoder("utf-8")()
    text = True
    for chunk in chunks:
        h.update(chunk)
        text = text and _decodes(decoder, chunk)
    return h.hexdigest(), text and _decodes(decoder, b"", final=True)


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


_SKELETON_FILES = (("binary.attributes", "* binary\n"),)


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
        """Holds the store's ``objects/``; git runs on this process's `shared_repository` skeleton."""
        self.dropped: list[str] = []
        """Paths of the last `diff`'s entries that git would refuse in a tree (they are not in the patch)."""
        self.skeleton = shared_repository(_SKELETON_FILES)
        # ``objects/`` is made by the first write: a diff written in process never touches the disk

    def _object_path(self, sha: str) -> Path:
        return self.git_dir / "objects" / sha[:2] / sha[2:]

    def _write_object(self, kind: bytes, body: bytes) -> str:
        data = kind + b" %d\0" % len(body) + body
        sha = hashlib.sha1(data, usedforsecurity=False).hexdigest()
        path = self._object_path(sha)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(zlib.compress(data, 1))
            os.replace(tmp, path)
        return sha

    def write_tree(self, entries: dict[str, BlobRef]) -> str:
        """Write the tree object(s) for `entries` (blobs may be missing) as loose objects and return the
        root id. Iterative (deepest directories first), so any depth the walk admitted is fine."""
        return _build_tree(entries, lambda body: self._write_object(b"tree", body))

    def _tree_objects(self, entries: dict[str, BlobRef]) -> tuple[str, list[PackObject]]:
        """The root id and tree objects of `entries`, in memory (see `write_tree`)."""
        trees: list[PackObject] = []

        def keep(body: bytes) -> str:
            sha = hashlib.sha1(b"tree %d\0" % len(body) + body, usedforsecurity=False).hexdigest()
            trees.append(PackObject(TREE, sha, len(body), lambda: iter((body,))))
            return sha

        return _build_tree(entries, keep), trees

    def _diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef], old_root: str, new_root: str, *,
              binary: bool) -> str:
        config = ["core.quotepath=true", f"core.attributesFile={self.skeleton / 'binary.attributes'}"]
        out = run_git(["diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--no-color",
                       "--no-ext-diff", "--no-textconv", old_root, new_root],
                      git_env(self.skeleton, objects=self.git_dir / "objects"), config=config if binary else [])
        return out.stdout.decode("utf-8", "surrogateescape")

    def diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef], *, in_process: bool = True) -> str:
        """Git-style patch from the tree `base` to the tree `new` (binary-safe, no renames, UTF-8).

        A small change of UTF-8 text files only is written in process (`textdiff.text_patch`, git's layout);
        otherwise the changed blobs and the trees of both sides go into one pack (`packs`), then ``git diff-tree``
        runs once per pass (text, and binary when some path needs it). ``in_process=False`` always uses git
        (the reference the in-process output is tested and measured against)."""
        self.dropped = sorted({rel for side in (base, new) for rel, ref in side.items() if refused(rel, ref.mode)})
        changed, odd = set(), set()
        blobs: dict[str, BlobRef] = {}
        for rel in set(base) | set(new):
            old_ref, new_ref = base.get(rel), new.get(rel)
            if old_ref is not None and new_ref is not None and (old_ref.sha, old_ref.mode) == (
                    new_ref.sha, new_ref.mode):
                continue
            changed.add(rel)
            if not is_utf8(os.fsencode(rel)):
                odd.add(rel)
            for ref in (old_ref, new_ref):
                if ref is None:
                    continue
                blobs.setdefault(ref.sha, ref)
                text = ref.text if ref.text is not None else blob_id(ref)[1]
                if not text:
                    odd.add(rel)
        if not changed:
            return ""
        if in_process and not odd:
            patch = text_patch(base, new, changed)
            if patch is not None:
                return patch
        passes = []
        objects = [_blob_object(ref) for ref in blobs.values()]
        for paths, binary in ((changed - odd, False), (odd, True)):
            if paths:
                old = {r: base[r] for r in paths if r in base}
                now = {r: new[r] for r in paths if r in new}
                (old_root, old_trees), (new_root, new_trees) = self._tree_objects(old), self._tree_objects(now)
                objects += old_trees + new_trees
                passes.append((old, now, old_root, new_root, binary))
        if not passes:
            return ""
        try:
            write_pack(self.git_dir / "objects" / "pack", objects)
        except ObjectChanged as exc:
            rel = blobs[exc.sha].rel if exc.sha in blobs else exc.sha
            raise AgentWorkspaceError(f"file changed while the diff was computed: {show(rel)}") from None
        patch = "".join(self._diff(*p[:4], binary=p[4]) for p in passes)
        if in_process and not odd:
            remember(base, new, changed, patch)
        return patch


def _blob_object(ref: BlobRef) -> PackObject:
    size, _ = (len(link_data(ref)), None) if ref.mode == "120000" else (ref.size, None)
    return PackObject(BLOB, ref.sha, size, lambda: _blob_chunks(ref)[1])


def _build_tree(entries: dict[str, BlobRef], emit: Callable[[bytes], str]) -> str:
    """Git tree objects for `entries` (paths git refuses left out), deepest directories first (any depth);
    `emit` stores one tree body and returns its id; returns the root id."""
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
        sha = emit(b"".join(mode + b" " + name + b"\0" + raw for name, mode, raw in items))
        if not directory:
            root = sha
            continue
        parent, _, name = directory.rpartition(b"/")
        listing[parent].append((name, b"40000", bytes.fromhex(sha)))
    return root
