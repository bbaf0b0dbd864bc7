"""Repository trees for scoring: the frozen base, a candidate (base + patch), and per-file diffs.

The base comes from the case's `base` source through `reqbench.core.workspace` (``dir:``, ``pypi:``, ...)
and is cached read-only per case; a candidate tree is a fresh copy with the patch applied by
`core.workspace.apply_patch` (exact-base applicability: a patch that does not apply raises
`PatchApplyError` and the candidate is not scored).
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.protocols.pace.l1.callgraph import SKIP_DIRS

try:  # the shared workspace layer (dir | git | archive | pypi sources, patch application)
    from reqbench.core.workspace import PatchApplyError, RepoSource, apply_patch, materialize
except ImportError:  # pragma: no cover - exercised only before the shared layer exists
    from reqbench.protocols.pace._workspace_fallback import (  # type: ignore[assignment]
        PatchApplyError,
        RepoSource,
        apply_patch,
        materialize,
    )

__all__ = ["PatchApplyError", "base_tree", "candidate_tree", "changed_files", "file_diffs", "make_patch",
           "patch_applies", "patch_paths"]

_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(.+?)\s*$")


def base_tree(base: str, case_dir: Path, cache_root: Path) -> Path:
    """Materialise the case's base once under `cache_root` (keyed by the source string) and return it."""
    key = re.sub(r"[^A-Za-z0-9_.=-]+", "_", base)[:120]
    dest = cache_root / "bases" / key
    if (dest / ".pace_base_ok").exists():
        return dest
    spec = base
    if base.startswith(("dir:", "archive:")):
        kind, _, rel = base.partition(":")
        p = Path(rel)
        spec = f"{kind}:{p if p.is_absolute() else (case_dir / p).resolve()}"
    try:
        source = RepoSource.parse(spec)
    except ValueError as exc:
        raise InputError(f"base source cannot be parsed: {exc}", file=str(case_dir / "case.yaml")) from exc
    tmp = Path(tempfile.mkdtemp(prefix=".base-", dir=_mk(cache_root / "bases")))
    ws = materialize(source, tmp / "tree")
    shutil.move(str(Path(ws.path)), str(dest)) if not dest.exists() else None
    shutil.rmtree(tmp, ignore_errors=True)
    (dest / ".pace_base_ok").write_text(base + "\n", encoding="utf-8")
    return dest


def _mk(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def candidate_tree(base: Path, patch_text: str, dest: Path) -> Path:
    """Copy `base` to `dest` and apply `patch_text` (raises `PatchApplyError` when it does not apply)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns(".pace_base_ok", *SKIP_DIRS))
    if patch_text.strip():
        apply_patch(dest, patch_text)
    return dest


def patch_applies(base: Path, patch_text: str) -> bool:
    """Exact-base applicability (paper Table 4: cross-case patches that do not apply are excluded)."""
    with tempfile.TemporaryDirectory(prefix="pace-apply-") as tmp:
        try:
            candidate_tree(base, patch_text, Path(tmp) / "t")
        except PatchApplyError:
            return False
    return True


def patch_paths(patch_text: str) -> list[str]:
    """Paths a unified diff touches (new side, or old side for deletions), in order, unique."""
    out: list[str] = []
    for line in patch_text.splitlines():
        m = _DIFF_PATH.match(line)
        if m and m.group(1) != "/dev/null" and m.group(1) not in out:
            out.append(m.group(1))
    return out


def changed_files(base: Path, cand: Path, candidates: list[str]) -> list[str]:
    """Of `candidates` (relative paths), those whose bytes differ between the trees (added/removed too)."""
    out = []
    for rel in candidates:
        a, b = base / rel, cand / rel
        if a.exists() != b.exists() or (a.exists() and a.read_bytes() != b.read_bytes()):
            out.append(rel)
    return out


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
    if not p.exists():
        return []
    try:
        return p.read_text(encoding="utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return []


def make_patch(base: Path, new: Path) -> str:
    """A git-style patch turning tree `base` into tree `new` (``git diff --no-index``, a/ b/ prefixes)."""
    with tempfile.TemporaryDirectory(prefix="pace-mkpatch-") as tmp:
        t = Path(tmp)
        shutil.copytree(base, t / "a", ignore=shutil.ignore_patterns(".pace_base_ok", *SKIP_DIRS))
        shutil.copytree(new, t / "b", ignore=shutil.ignore_patterns(".pace_base_ok", *SKIP_DIRS))
        proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "--binary", "a", "b"], cwd=t,
                              capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"git diff failed: {proc.stderr.strip()}")
        return proc.stdout


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
        body = "".join(difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{rel}", f"b/{rel}", n=3))
        header = f"diff --git a/{rel} b/{rel}\n" + ("new file mode 100644\n" if old is None else "")
        if not body and old is None:
            out.append(header)
            continue
        out.append(header + body)
    return "".join(out)
