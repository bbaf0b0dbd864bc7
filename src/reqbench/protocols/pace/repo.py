"""Repository trees for scoring: the frozen base, a candidate (base + patch), and per-file diffs.

The base comes from the case's `base` source through `reqbench.core.workspace` (``dir:``, ``pypi:``, ...)
and is cached read-only per case; a candidate tree is a fresh workspace (`core.workspace.materialize`)
with the patch applied by `core.workspace.apply_patch` (exact-base applicability: a patch that does not apply raises
`PatchApplyError` and the candidate is not scored).
"""

from __future__ import annotations

import difflib
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.workspace import PatchApplyError, RepoSource, diff_trees, materialize, remove_tree
from reqbench.core.workspace.fileio import read_regular
from reqbench.core.workspace.patch_paths import patch_paths

__all__ = [
    "PatchApplyError",
    "base_tree",
    "candidate_tree",
    "changed_files",
    "file_diffs",
    "make_patch",
    "patch_applies",
    "patch_paths",
]

def base_tree(base: str, case_dir: Path, sha256: str | None = None) -> Path:
    """The pristine base tree of a case (read-only; pypi/archive sources are fetched and cached once,
    hash-checked by `core.workspace`). Relative ``dir:``/``archive:`` paths resolve against the case."""
    spec = base
    if sha256 and base.startswith(("pypi:", "archive:")) and "#sha256=" not in base:
        spec = f"{base}#sha256={sha256}"
    return RepoSource.parse(spec, case_dir).baseline()


def candidate_tree(base: Path, patch_text: str, dest: Path) -> Path:
    """A fresh workspace of `base` at `dest` (`core.workspace.materialize`: real copies, links kept as
    links) with `patch_text` applied (raises `PatchApplyError` when it does not apply)."""
    if dest.exists():
        remove_tree(dest)
    workspace = materialize(RepoSource(kind="dir", location=str(base)), dest)
    if patch_text.strip():
        workspace.apply(patch_text)
    return dest


def patch_applies(base: Path, patch_text: str) -> bool:
    """Exact-base applicability (paper Table 4: cross-case patches that do not apply are excluded)."""
    with tempdirs.folder("pace-apply") as tmp:
        try:
            candidate_tree(base, patch_text, Path(tmp) / "t")
        except PatchApplyError:
            return False
    return True


def changed_files(base: Path, cand: Path, candidates: list[str]) -> list[str]:
    """Of `candidates` (relative paths), those whose bytes differ between the trees (added/removed too)."""
    out = []
    for rel in candidates:
        if _content(base / rel) != _content(cand / rel):
            out.append(rel)
    return out


def _content(p: Path) -> bytes | None:
    """A tree entry's content as git sees it: a symlink is its target text (never followed: the candidate
    tree is built from the agent's submission, and a link to /proc/self/environ must not be read), a
    regular file its bytes, anything else None."""
    if p.is_symlink():
        return b"link:" + str(p.readlink()).encode("utf-8", "surrogateescape")
    if not p.is_file():
        return None
    return read_regular(p, root=p.parent)


def file_diffs(base: Path, cand: Path, paths: list[str]) -> dict[str, str]:
    """Exact unified diff per changed file (3 lines of context)."""
    out = {}
    for rel in paths:
        a = _read(base / rel)
        b = _read(cand / rel)
        diff = "".join(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}", n=3))
        if diff:
            out[rel] = diff
    return out


def _read(p: Path) -> list[str]:
    data = _content(p)
    if data is None:
        return []
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return []


def make_patch(base: Path, new: Path) -> str:
    """A git-style patch turning tree `base` into tree `new`."""
    return diff_trees(base, new)


def text_patch(files: dict[str, tuple[str | None, str]]) -> str:
    """A git-applicable patch from whole-file texts: path -> (old text or None for a new file, new text)."""
    out = []
    for rel, (old, new) in sorted(files.items()):
        a = (old or "").splitlines(keepends=True)
        b = new.splitlines(keepends=True)
        if old is not None and a == b:
            continue
        if b and not b[-1].endswith("\n"):
            b[-1] += "\n"
        body = "".join(
            difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{rel}", f"b/{rel}", n=3)
        )
        header = f"diff --git a/{rel} b/{rel}\n" + ("new file mode 100644\n" if old is None else "")
        if not body and old is None:
            out.append(header)
            continue
        out.append(header + body)
    return "".join(out)
