"""The real upstream change between two released sdists of one project (``pypi-diff:`` sources).

Spec: ``pypi-diff:NAME==A..B[#paths=GLOB,GLOB,...][&sha256=HEX_A,HEX_B]``.

* Both sdists come from the ``pypi:`` cache (`sources`): downloaded once with pip, hash-checked on every
  use (against the recorded sha256, and against the pins when ``sha256=`` is given).
* ``paths`` restricts the change to files whose sdist-relative POSIX path matches one of the globs
  (`fnmatch` rules: ``*`` also crosses ``/``; ``src/pkg/*.py`` therefore includes sub-packages). Without
  it every file is compared except the build metadata every sdist regenerates (``PKG-INFO`` files and
  ``*.egg-info/`` folders).
* The patch is git-style and byte-exact (`patches.ObjectStore`: binary-safe, no renames), so it applies
  with `apply_patch` to a workspace materialised from ``pypi:NAME==A`` -- the maintainers' own change,
  restricted to the filter.

As a repository source (`RepoSource.parse("pypi-diff:...")`) the baseline is release A with that
patch applied: B where the filter reaches, A everywhere else; `RepoSource.change_patch()` gives the patch
itself. Both are cached under ``$REQBENCH_CACHE/pypi-diff`` keyed by the two sdist hashes and the
filter. This module never fetches anything itself: `sources` hands it the ``pypi:`` release cache.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, sha256_text
from reqbench.core.workspace.objects import BlobRef, ObjectStore
from reqbench.core.workspace.patches import apply_patch, scan_tree
from reqbench.core.workspace.trees import copy_tree

PREFIX = "pypi-diff:"
_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VERSION = r"[A-Za-z0-9][A-Za-z0-9+!_-]*(?:\.[A-Za-z0-9+!_-]+)*"
_SPEC_RE = re.compile(rf"^({_NAME})==({_VERSION})\.\.({_VERSION})$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class PypiDiff:
    """A parsed ``pypi-diff:`` spec."""

    name: str
    old: str
    new: str
    paths: tuple[str, ...] = ()
    sha256: tuple[str, str] | None = None

    @property
    def spec(self) -> str:
        frag = []
        if self.paths:
            frag.append("paths=" + ",".join(self.paths))
        if self.sha256:
            frag.append("sha256=" + ",".join(self.sha256))
        return f"{PREFIX}{self.name}=={self.old}..{self.new}" + ("#" + "&".join(frag) if frag else "")

    @property
    def old_requirement(self) -> str:
        return f"{self.name}=={self.old}"

    @property
    def new_requirement(self) -> str:
        return f"{self.name}=={self.new}"

    def selected(self, relpath: str) -> bool:
        """Whether a sdist-relative path is part of the change."""
        if self.paths:
            return any(fnmatch.fnmatchcase(relpath, g) for g in self.paths)
        parts = relpath.split("/")
        return parts[-1] != "PKG-INFO" and not any(p.endswith(".egg-info") for p in parts[:-1])


def is_pypi_diff(text: str) -> bool:
    return text.strip().startswith(PREFIX)


def parse(spec: str) -> PypiDiff:
    """Parse ``pypi-diff:NAME==A..B[#paths=...][&sha256=A,B]``; `InputError` names the spec and rule."""
    text = spec.strip()
    if not text.startswith(PREFIX):
        raise InputError(f"expected {PREFIX}NAME==A..B", item=spec)
    body, _, fragment = text[len(PREFIX):].partition("#")
    m = _SPEC_RE.match(body.strip())
    if not m:
        raise InputError(f"expected {PREFIX}NAME==A..B[#paths=GLOB,...]", item=spec)
    name, old, new = m.groups()
    if old == new:
        raise InputError("the two versions must differ", item=spec)
    paths: tuple[str, ...] = ()
    pins: tuple[str, str] | None = None
    for part in filter(None, fragment.split("&")):
        key, eq, value = part.partition("=")
        if key == "paths" and eq:
            paths = tuple(g.strip().lstrip("/") for g in value.split(",") if g.strip())
            if not paths:
                raise InputError("paths= needs at least one glob", item=spec)
        elif key == "sha256" and eq:
            hexes = [h.strip().lower() for h in value.split(",")]
            if len(hexes) != 2 or not all(_SHA_RE.match(h) for h in hexes):
                raise InputError("sha256= needs two 64-hex-digit hashes (release A, release B)", item=spec)
            pins = (hexes[0], hexes[1])
        else:
            raise InputError(f"unknown fragment {part!r}; known: paths=GLOB,..., sha256=HEX_A,HEX_B",
                             item=spec)
    return PypiDiff(name, old, new, paths, pins)


Release = Callable[[str, "str | None"], tuple[Path, str]]
"""(requirement NAME==VERSION, expected sha256 or None) -> (unpacked sdist tree, sdist sha256);
`sources` passes its hash-checked ``pypi:`` cache."""


def _trees(diff: PypiDiff, release: Release) -> tuple[Path, Path, str]:
    """Unpacked trees of both releases (hash-checked) and a cache key for the filtered change."""
    pins = diff.sha256 or (None, None)
    old_tree, old_sha = release(diff.old_requirement, pins[0])
    new_tree, new_sha = release(diff.new_requirement, pins[1])
    key = sha256_text("\n".join(["pypi-diff-v1", old_sha, new_sha, *diff.paths]))
    return old_tree, new_tree, key


def _filtered(root: Path, diff: PypiDiff) -> dict[str, BlobRef]:
    return {rel: ref for rel, ref in scan_tree(root).items() if diff.selected(rel)}


def change_patch(diff: PypiDiff, release: Release, cache: Path) -> str:
    """The git-style patch from release A to release B, restricted to the path filter.

    Raises `InputError` when a release cannot be fetched or checked, or when the filter selects no
    change at all (an empty upstream change is always a construction mistake).
    """
    old_tree, new_tree, key = _trees(diff, release)
    cached = cache / "pypi-diff" / f"{key}.patch"
    if cached.is_file():
        return cached.read_text(encoding="utf-8", errors="surrogateescape")
    with tempdirs.folder("pypi-diff") as tmp:
        text = ObjectStore(Path(tmp) / "objects.git").diff(_filtered(old_tree, diff),
                                                           _filtered(new_tree, diff))
    if not text.strip():
        raise InputError("no file selected by the path filter changed between the two releases",
                         item=diff.spec)
    cached.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(cached, text)
    return text


def patched_tree(diff: PypiDiff, release: Release, cache: Path,
                 publish: Callable[[Callable[[Path], None], Path], Path]) -> Path:
    """Release A with the filtered upstream change applied (published once into the cache)."""
    old_tree, _, key = _trees(diff, release)
    text = change_patch(diff, release, cache)

    def build(out: Path) -> None:
        copy_tree(old_tree, out)
        apply_patch(out, text)

    return publish(build, cache / "pypi-diff" / key)


def touched(patch: str) -> tuple[list[str], int, int]:
    """(files, added lines, removed lines) of a git-style patch -- the sizes suites report."""
    files: list[str] = []
    added = removed = 0
    for line in patch.splitlines():
        if line.startswith("diff --git a/"):
            files.append(line.split(" b/", 1)[-1])
        elif line.startswith("+") and not line.startswith("+++ "):
            added += 1
        elif line.startswith("-") and not line.startswith("--- "):
            removed += 1
    return files, added, removed
