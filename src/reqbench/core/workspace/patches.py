"""Patches between trees: `diff_trees`, `apply_patch`, and the frozen `Submission`.

Both directions use real git on a throw-away object store, never the repository the tree may belong
to, with user and system configuration switched off. Diffs are built from blobs reqbench hashes itself
(`walk_tree`), so in-tree ``.gitattributes``/``.gitignore`` cannot filter, convert or hide content: the
patch is byte-exact, covers added, deleted, binary and symlink files and mode changes, and has no
rename detection (every change is explicit). `git apply` is all-or-nothing: a patch applies cleanly or
not at all, and the error names the file and hunk that failed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import HarnessError, InputError
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace.trees import walk_tree


class PatchApplyError(InputError):
    """A patch does not apply to a workspace; the message names the failing file and hunk."""


@dataclass(frozen=True)
class Submission:
    """What an agent delivered: the patch against the workspace's baseline, and its sha256."""

    patch: str
    sha256: str

    @classmethod
    def from_patch(cls, text: str) -> Submission:
        return cls(patch=text, sha256=sha256_text(text))

    @property
    def empty(self) -> bool:
        return not self.patch.strip()

    def to_dict(self) -> dict[str, str]:
        return {"patch": self.patch, "sha256": self.sha256}


def git_env(git_dir: Path, work_tree: Path | None = None, index: Path | None = None) -> dict[str, str]:
    """Environment for git on a private object store, immune to user/system config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_DIR": str(git_dir), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


_GIT_OPTS = ["-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "gc.auto=0",
             "-c", "core.fsmonitor=false", "-c", "diff.noprefix=false", "-c", "core.safecrlf=false"]


def run_git(args: list[str], env: dict[str, str], *, cwd: Path | None = None,
            input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    try:
        proc = subprocess.run(["git", *_GIT_OPTS, *args], env=env, cwd=cwd, input=input,
                              capture_output=True, check=False)
    except FileNotFoundError:
        raise HarnessError("git is not installed; reqbench needs git for diffs and patches") from None
    if check and proc.returncode != 0:
        raise HarnessError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc


@dataclass(frozen=True)
class BlobRef:
    """A tree entry hashed as a git blob (content not yet stored)."""

    mode: str
    sha: str
    path: Path


def _blob_data(ref: BlobRef) -> bytes:
    if ref.mode == "120000":
        return os.readlink(ref.path).encode("utf-8", "surrogateescape")
    return ref.path.read_bytes()


def scan_tree(root: Path) -> dict[str, BlobRef]:
    """Relative path -> git blob id and mode of every entry below `root` (nothing is written)."""
    out = {}
    for entry in walk_tree(root):
        mode = "120000" if entry.kind == "link" else ("100755" if entry.executable else "100644")
        ref = BlobRef(mode, "", entry.path)
        data = _blob_data(ref)
        sha = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
        out[entry.relpath] = BlobRef(mode, sha, entry.path)
    return out


class ObjectStore:
    """A private bare git repository used only to build trees and compute diffs.

    Trees are written with ``--missing-ok`` and only the blobs that differ between the two sides of a
    diff are stored, so diffing a large tree after a small edit writes a handful of objects.
    """

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        if not (self.git_dir / "objects").is_dir():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            run_git(["init", "-q", "--bare", str(self.git_dir)], git_env(self.git_dir))

    def _store_blob(self, ref: BlobRef) -> None:
        path = self.git_dir / "objects" / ref.sha[:2] / ref.sha[2:]
        if path.exists():
            return
        data = _blob_data(ref)
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(zlib.compress(b"blob %d\0" % len(data) + data, 1))
        os.replace(tmp, path)

    def write_tree(self, entries: dict[str, BlobRef]) -> str:
        """Write the tree object(s) for `entries` (blobs may be missing) and return the root id."""
        lines = [f"{ref.mode} {ref.sha}\t{rel}".encode("utf-8", "surrogateescape")
                 for rel, ref in sorted(entries.items())]
        with tempfile.TemporaryDirectory() as tmp:
            env = git_env(self.git_dir, index=Path(tmp) / "index")
            if lines:
                run_git(["update-index", "-z", "--index-info"], env, input=b"\0".join(lines) + b"\0")
            out = run_git(["write-tree", "--missing-ok"], env)
        return out.stdout.decode().strip()

    def diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef]) -> str:
        """Git-style patch from the tree `base` to the tree `new` (binary-safe, no renames)."""
        if base == new:
            return ""
        for rel in set(base) | set(new):
            old_ref, new_ref = base.get(rel), new.get(rel)
            if old_ref is not None and new_ref is not None and (old_ref.sha, old_ref.mode) == (
                    new_ref.sha, new_ref.mode):
                continue
            for ref in (old_ref, new_ref):
                if ref is not None:
                    self._store_blob(ref)
        out = run_git(["diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--no-color",
                       "--no-ext-diff", "--no-textconv", self.write_tree(base), self.write_tree(new)],
                      git_env(self.git_dir))
        return out.stdout.decode("utf-8", "surrogateescape")


def diff_trees(base: Path, changed: Path) -> str:
    """The git-style unified patch that turns the tree `base` into the tree `changed`.

    Empty when the trees are equal. Applying the result with `apply_patch` to a copy of `base` yields a
    tree with the same `tree_hash` as `changed`.
    """
    with tempfile.TemporaryDirectory(prefix="reqbench-diff-") as tmp:
        store = ObjectStore(Path(tmp) / "objects.git")
        return store.diff(scan_tree(Path(base)), scan_tree(Path(changed)))


def apply_patch(workspace: Path, patch: str) -> None:
    """Apply `patch` to the tree at `workspace`: cleanly, or not at all (`PatchApplyError`).

    `git apply --check` runs first; `git apply` itself is atomic, so a failure leaves the workspace
    exactly as it was. An empty patch is a no-op.
    """
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise InputError("workspace directory does not exist", file=str(workspace))
    if not patch.strip():
        return
    data = patch.encode("utf-8", "surrogateescape")
    if not data.endswith(b"\n"):
        data += b"\n"
    with tempfile.TemporaryDirectory(prefix="reqbench-apply-") as tmp:
        git_dir = Path(tmp) / "g.git"
        run_git(["init", "-q", "--bare", str(git_dir)], git_env(git_dir))
        # $GIT_DIR/info/attributes outranks in-tree .gitattributes: no eol/filter/ident conversion.
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "attributes").write_text(_NO_CONVERSION)
        env = git_env(git_dir, work_tree=workspace)
        for args in (["apply", "--check"], ["apply"]):
            proc = run_git([*args, "--whitespace=nowarn", "-"], env, cwd=workspace, input=data,
                           check=False)
            if proc.returncode != 0:
                raise PatchApplyError(_apply_failure(proc.stderr.decode("utf-8", "replace")),
                                      file=str(workspace))


_NO_CONVERSION = "* -text !eol -crlf -ident !filter !working-tree-encoding\n"


def _apply_failure(stderr: str) -> str:
    lines = [ln.removeprefix("error: ").strip() for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return "patch does not apply"
    return "patch does not apply: " + "; ".join(lines[:6])
