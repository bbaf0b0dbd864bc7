"""Patches between trees: `diff_trees`, `apply_patch`, and the frozen `Submission`.

The common case is done in process, in the same layout and with the same outcome as git (`textdiff` for
a small change of UTF-8 text files, `textapply` for a plain text patch that applies exactly); everything
else uses real git on a throw-away object store, never the repository the tree may belong
to, with user and system configuration switched off. Diffs are built from blobs reqbench hashes itself
(`walk_tree`), so in-tree ``.gitattributes``/``.gitignore`` cannot filter, convert or hide content: the
patch is byte-exact, covers added, deleted, binary and symlink files and mode changes, and has no
rename detection (every change is explicit). `git apply` is all-or-nothing: a patch applies cleanly or
not at all, and the error names the file and hunk that failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace.git import git_env, run_git, shared_repository
from reqbench.core.workspace.limits import DEFAULT_LIMITS, TreeMeter, WorkspaceLimits, show
from reqbench.core.workspace.objects import BlobRef, ObjectStore, blob_id, is_utf8, link_data
from reqbench.core.workspace.textapply import apply_text
from reqbench.core.workspace.trees import TreeEntry, walk_tree


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


def scan_tree(root: Path, limits: WorkspaceLimits | None = None, *,
              meter: TreeMeter | None = None) -> dict[str, BlobRef]:
    """Relative path -> git blob id and mode of every entry below `root` (nothing is written).

    Contents are streamed; `limits`/`meter` cap the walk as in `walk_tree`. A symlink whose target is
    not UTF-8 cannot be carried by a text patch: it is left out and recorded in the meter's `skipped`.
    """
    meter = meter or TreeMeter(limits)
    out = {}
    for entry in walk_tree(root, meter=meter):
        ref = entry_ref(entry, meter.stats.skipped)
        if ref is not None:
            out[entry.relpath] = ref
    return out


def entry_ref(entry: TreeEntry, skipped: list[str]) -> BlobRef | None:
    """The hashed `BlobRef` of one tree entry, or None (noted in `skipped`) for a symlink whose target is
    not UTF-8: git diffs link targets as text only, and a patch must stay UTF-8."""
    mode = "120000" if entry.kind == "link" else ("100755" if entry.executable else "100644")
    ref = BlobRef(mode, "", entry.path, entry.size, entry.relpath)
    if mode == "120000" and not is_utf8(link_data(ref)):
        skipped.append(f"{show(entry.relpath, 300)} (symlink target is not UTF-8)")
        return None
    sha, text = blob_id(ref)
    return BlobRef(mode, sha, entry.path, entry.size, entry.relpath, text)


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
    with tempdirs.folder("diff") as tmp:
        store = ObjectStore(Path(tmp) / "objects.git")
        patch = store.diff(base_entries, new_entries)
    if skipped is not None:
        skipped += meter.stats.skipped + [f"{p} (refused by git)" for p in store.dropped]
    return patch


def apply_patch(workspace: Path, patch: str, *, in_process: bool = True) -> None:
    """Apply `patch` to the tree at `workspace`: cleanly, or not at all (`PatchApplyError`).

    A plain text patch that applies exactly is applied in process (`textapply`: the same tree `git apply`
    makes, or deferral); anything else is one `git apply` process: it checks every hunk before it writes
    anything (it is all-or-nothing without ``--reject``), so a failure leaves the workspace exactly as it
    was, and its error names the file and hunk. An empty patch is a no-op. ``in_process=False`` always
    runs git (the reference `textapply` is tested and measured against).
    """
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise InputError("workspace directory does not exist", file=str(workspace))
    if not patch.strip():
        return
    data = patch.encode("utf-8", "surrogateescape")
    if not data.endswith(b"\n"):
        data += b"\n"
    if in_process:
        try:
            if apply_text(workspace, data):
                return
        except OSError as exc:
            raise PatchApplyError(f"patch could not be written: {exc.strerror}", file=str(workspace)) from None
    # $GIT_DIR/info/attributes outranks in-tree .gitattributes: no eol/filter/ident conversion.
    git_dir = shared_repository((("info/attributes", _NO_CONVERSION),))
    proc = run_git(["apply", "--whitespace=nowarn", "-"], git_env(git_dir, work_tree=workspace),
                   cwd=workspace, input=data, check=False)
    if proc.returncode != 0:
        raise PatchApplyError(_apply_failure(proc.stderr.decode("utf-8", "replace")), file=str(workspace))


_NO_CONVERSION = "* -text !eol -crlf -ident !filter !working-tree-encoding\n"


def _apply_failure(stderr: str) -> str:
    lines = [ln.removeprefix("error: ").strip() for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return "patch does not apply"
    return "patch does not apply: " + "; ".join(lines[:6])
