"""Patches between trees: `diff_trees`, `apply_patch`, and the frozen `Submission`.

Both directions use real git on a throw-away object store, never the repository the tree may belong
to, with user and system configuration switched off. Diffs are built from blobs reqbench hashes itself
(`walk_tree`), so in-tree ``.gitattributes``/``.gitignore`` cannot filter, convert or hide content: the
patch is byte-exact, covers added, deleted, binary and symlink files and mode changes, and has no
rename detection (every change is explicit). `git apply` is all-or-nothing: a patch applies cleanly or
not at all, and the error names the file and hunk that failed.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import AgentWorkspaceError, HarnessError, InputError
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace.fileio import open_regular, read_chunks, read_link
from reqbench.core.workspace.limits import DEFAULT_LIMITS, TreeMeter, WorkspaceLimits, show
from reqbench.core.workspace.trees import walk_tree


class PatchApplyError(InputError):
    """A patch does not apply to a workspace; the message names the failing file and hunk."""


@dataclass(frozen=True)
class Submission:
    """What an agent delivered: the patch against the workspace's baseline, and its sha256.

    `skipped` names workspace entries that are not content and are not in the patch (FIFOs, sockets,
    devices; paths git refuses), so a reader can see what the agent left that was not delivered.
    """

    patch: str
    sha256: str
    skipped: tuple[str, ...] = ()

    @classmethod
    def from_patch(cls, text: str, skipped: tuple[str, ...] = ()) -> Submission:
        return cls(patch=text, sha256=sha256_text(text), skipped=tuple(skipped))

    @property
    def empty(self) -> bool:
        return not self.patch.strip()

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"patch": self.patch, "sha256": self.sha256}
        if self.skipped:
            out["skipped"] = list(self.skipped)
        return out


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
             "-c", "core.fsmonitor=false", "-c", "diff.noprefix=false", "-c", "core.safecrlf=false",
             "-c", "core.protectNTFS=false", "-c", "core.protectHFS=false"]


def run_git(args: list[str], env: dict[str, str], *, cwd: Path | None = None,
            input: bytes | None = None, check: bool = True,
            config: list[str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git with reqbench's fixed options (plus ``-c`` `config` entries, which take precedence)."""
    extra = [arg for item in config or [] for arg in ("-c", item)]
    try:
        proc = subprocess.run(["git", *_GIT_OPTS, *extra, *args], env=env, cwd=cwd, input=input,
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
    size: int = 0
    rel: str = ""


def _link_data(ref: BlobRef) -> bytes:
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
        data = _link_data(ref)
        return len(data), iter((data,))
    return ref.size, _file_chunks(ref)


def _blob_sha(ref: BlobRef) -> str:
    size, chunks = _blob_chunks(ref)
    h = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()


def scan_tree(root: Path, limits: WorkspaceLimits | None = None, *,
              meter: TreeMeter | None = None) -> dict[str, BlobRef]:
    """Relative path -> git blob id and mode of every entry below `root` (nothing is written).

    Contents are streamed; `limits`/`meter` cap the walk as in `walk_tree`. A symlink whose target is
    not UTF-8 cannot be carried by a text patch: it is left out and recorded in the meter's `skipped`.
    """
    meter = meter or TreeMeter(limits)
    out = {}
    for entry in walk_tree(root, meter=meter):
        mode = "120000" if entry.kind == "link" else ("100755" if entry.executable else "100644")
        ref = BlobRef(mode, "", entry.path, entry.size, entry.relpath)
        if mode == "120000" and not _is_utf8(_link_data(ref)):
            # git diffs link targets as text only; a patch must stay UTF-8, so such a link is skipped.
            meter.stats.skipped.append(f"{show(entry.relpath, 300)} (symlink target is not UTF-8)")
            continue
        out[entry.relpath] = BlobRef(mode, _blob_sha(ref), entry.path, entry.size, entry.relpath)
    return out


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _utf8_name(rel: str) -> bool:
    return _is_utf8(os.fsencode(rel))


class ObjectStore:
    """A private bare git repository used only to build trees and compute diffs.

    Trees are written with ``--missing-ok`` and only the blobs that differ between the two sides of a
    diff are stored, so diffing a large tree after a small edit writes a handful of objects.

    Patches are always valid UTF-8 text: a changed path whose name or content (on either side) is not
    UTF-8 is diffed in a second pass where every file is binary (``GIT binary patch``, base85) and
    names are C-quoted with octal escapes; every other path keeps the readable unified diff.
    """

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self.dropped: list[str] = []
        """Paths git refused to put in a tree during the last `diff` (they are not in the patch)."""
        if not (self.git_dir / "objects").is_dir():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            run_git(["init", "-q", "--bare", str(self.git_dir)], git_env(self.git_dir))
        attributes = self.git_dir / "binary.attributes"
        if not attributes.exists():
            attributes.write_text("* binary\n")

    def _store_blob(self, ref: BlobRef) -> bool:
        """Store the blob of `ref` (streamed, checked against its id); True when its bytes are UTF-8."""
        path = self.git_dir / "objects" / ref.sha[:2] / ref.sha[2:]
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
        """Write the tree object(s) for `entries` (blobs may be missing) and return the root id."""
        lines = [f"{ref.mode} {ref.sha}\t".encode() + os.fsencode(rel)
                 for rel, ref in sorted(entries.items())]
        with tempfile.TemporaryDirectory() as tmp:
            env = git_env(self.git_dir, index=Path(tmp) / "index")
            if lines:
                proc = run_git(["update-index", "-z", "--index-info"], env, input=b"\0".join(lines) + b"\0")
                self.dropped += [ln.removeprefix("Ignoring path ").strip()
                                 for ln in proc.stderr.decode("utf-8", "backslashreplace").splitlines()
                                 if ln.startswith("Ignoring path ")]
            out = run_git(["write-tree", "--missing-ok"], env)
        return out.stdout.decode().strip()

    def _diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef], *, binary: bool) -> str:
        config = ["core.quotepath=true", f"core.attributesFile={self.git_dir / 'binary.attributes'}"]
        out = run_git(["diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--no-color",
                       "--no-ext-diff", "--no-textconv", self.write_tree(base), self.write_tree(new)],
                      git_env(self.git_dir), config=config if binary else [])
        return out.stdout.decode("utf-8", "surrogateescape")

    def diff(self, base: dict[str, BlobRef], new: dict[str, BlobRef]) -> str:
        """Git-style patch from the tree `base` to the tree `new` (binary-safe, no renames, UTF-8)."""
        self.dropped = []
        if base == new:
            return ""
        changed, odd = set(), set()
        for rel in set(base) | set(new):
            old_ref, new_ref = base.get(rel), new.get(rel)
            if old_ref is not None and new_ref is not None and (old_ref.sha, old_ref.mode) == (
                    new_ref.sha, new_ref.mode):
                continue
            changed.add(rel)
            if not _utf8_name(rel):
                odd.add(rel)
            for ref in (old_ref, new_ref):
                if ref is not None and not self._store_blob(ref):
                    odd.add(rel)
        if not changed:
            return ""
        patch = ""
        if changed - odd:
            patch = self._diff({r: v for r, v in base.items() if r not in odd},
                               {r: v for r, v in new.items() if r not in odd}, binary=False)
        if odd:
            patch += self._diff({r: v for r, v in base.items() if r in odd},
                                {r: v for r, v in new.items() if r in odd}, binary=True)
        return patch


def _decodes(decoder: codecs.IncrementalDecoder, chunk: bytes, final: bool = False) -> bool:
    try:
        decoder.decode(chunk, final)
        return True
    except UnicodeDecodeError:
        return False


def diff_trees(base: Path, changed: Path, limits: WorkspaceLimits | None = DEFAULT_LIMITS, *,
               skipped: list[str] | None = None) -> str:
    """The git-style unified patch that turns the tree `base` into the tree `changed`.

    Empty when the trees are equal. Applying the result with `apply_patch` to a copy of `base` yields a
    tree with the same `tree_hash` as `changed`. `changed` is the untrusted side: it is walked under
    `limits` on top of what `base` holds (`WorkspaceLimits.beyond`; ``None`` for no caps) and may raise
    `WorkspaceLimitExceeded` / `AgentWorkspaceError`. Special files and paths git refuses are appended
    to `skipped` when given.
    """
    base_meter = TreeMeter()
    base_entries = scan_tree(Path(base), meter=base_meter)
    meter = TreeMeter(limits.beyond(base_meter.stats) if limits is not None else None)
    new_entries = scan_tree(Path(changed), meter=meter)
    with tempfile.TemporaryDirectory(prefix="reqbench-diff-") as tmp:
        store = ObjectStore(Path(tmp) / "objects.git")
        patch = store.diff(base_entries, new_entries)
    if skipped is not None:
        skipped += meter.stats.skipped + [f"{p} (refused by git)" for p in store.dropped]
    return patch


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
