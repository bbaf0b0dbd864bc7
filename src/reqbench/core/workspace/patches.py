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


class ObjectStore:
    """A private bare git repository used only to hash trees and compute diffs."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        if not (self.git_dir / "objects").is_dir():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            run_git(["init", "-q", "--bare", str(self.git_dir)], git_env(self.git_dir))

    def _write_blob(self, data: bytes) -> str:
        header = b"blob %d\0" % len(data)
        sha = hashlib.sha1(header + data, usedforsecurity=False).hexdigest()
        path = self.git_dir / "objects" / sha[:2] / sha[2:]
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(zlib.compress(header + data, 1))
            os.replace(tmp, path)
        return sha

    def write_tree(self, root: Path) -> str:
        """Store the tree below `root` and return its git tree id."""
        lines = []
        for entry in walk_tree(root):
            if entry.kind == "link":
                mode = "120000"
                sha = self._write_blob(os.readlink(entry.path).encode("utf-8", "surrogateescape"))
            else:
                mode = "100755" if entry.executable else "100644"
                sha = self._write_blob(entry.path.read_bytes())
            lines.append(f"{mode} {sha}\t{entry.relpath}".encode("utf-8", "surrogateescape"))
        with tempfile.TemporaryDirectory() as tmp:
            env = git_env(self.git_dir, index=Path(tmp) / "index")
            run_git(["update-index", "-z", "--index-info"], env, input=b"\0".join(lines) + b"\0")
            out = run_git(["write-tree"], env)
        return out.stdout.decode().strip()

    def diff(self, base_tree: str, new_tree: str) -> str:
        """Git-style patch from `base_tree` to `new_tree` (binary-safe, no renames)."""
        out = run_git(["diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--no-color",
                       "--no-ext-diff", "--no-textconv", base_tree, new_tree], git_env(self.git_dir))
        return out.stdout.decode("utf-8", "surrogateescape")


def diff_trees(base: Path, changed: Path) -> str:
    """The git-style unified patch that turns the tree `base` into the tree `changed`.

    Empty when the trees are equal. Applying the result with `apply_patch` to a copy of `base` yields a
    tree with the same `tree_hash` as `changed`.
    """
    with tempfile.TemporaryDirectory(prefix="reqbench-diff-") as tmp:
        store = ObjectStore(Path(tmp) / "objects.git")
        return store.diff(store.write_tree(Path(base)), store.write_tree(Path(changed)))


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
