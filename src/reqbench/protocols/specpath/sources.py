"""Where a family's base repository and patches come from: family files, or real releases fetched at run time.

``base_repo`` in `family.yaml` is either a folder relative to the family or a repository source spec
(``pypi:NAME==VERSION``, ``pypi-diff:...``, ``git:...``, ``archive:...``; see `core.workspace.sources`),
so a family can sit on a pinned, hash-checked release without committing its tree.

``reference_patch`` and every ``negatives`` entry are *patch expressions*: one or more terms joined by
`` + ``, applied in that order to a fresh copy of the base; the expression's patch is the difference the
terms make together. A term is

* a patch file relative to the family (``reference.patch``, ``negatives/x.patch``);
* ``pypi-diff:NAME==A..B[#paths=...]`` -- the maintainers' own change between two releases;
* ``reference`` -- the family's reference patch (inside ``negatives`` only), so a selective negative is
  written as ``reference + negatives/x.patch``: the upstream change plus a small reviewed delta.

A single file term is returned byte for byte; anything else is composed on a scratch workspace (and
memoised per process by the terms' content).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace import PatchApplyError, RepoSource, materialize
from reqbench.core.workspace.pypi_diff import is_pypi_diff
from reqbench.core.workspace.sources import is_source_spec, read_patch

REFERENCE = "reference"
_SEP = " + "
_COMPOSED: dict[str, str] = {}
_LOCK = threading.Lock()


def base_source(root: Path, base_repo: str) -> RepoSource | None:
    """The repository source named by ``base_repo``, or None when it is a family-relative folder."""
    if not is_source_spec(base_repo):
        return None
    return RepoSource.parse(base_repo, base_dir=root)


def terms(expr: str) -> list[str]:
    """The terms of a patch expression, in application order."""
    parts = [t.strip() for t in expr.split(_SEP)]
    if not all(parts):
        raise InputError("empty term in patch expression", item=expr)
    return parts


def file_terms(expr: str, *, allow_reference: bool) -> list[str]:
    """The family-relative patch files an expression names (for `validate`); rejects misplaced terms."""
    out = []
    for term in terms(expr):
        if term == REFERENCE:
            if not allow_reference:
                raise InputError("'reference' may only be used inside a negative", item=expr)
        elif not is_pypi_diff(term):
            out.append(term)
    return out


def _term_text(root: Path, term: str, reference: Callable[[], str]) -> str:
    if term == REFERENCE:
        return reference()
    return read_patch(root, term)


def patch_text(root: Path, expr: str, base: Callable[[], Path], reference_expr: str) -> str:
    """The patch an expression stands for, relative to the family's base repository."""
    parts = terms(expr)

    def reference() -> str:
        if expr.strip() == reference_expr.strip():
            raise InputError("the reference patch cannot refer to itself", item=expr)
        return patch_text(root, reference_expr, base, reference_expr)

    texts = [_term_text(root, t, reference) for t in parts]
    if len(texts) == 1:
        return texts[0]
    base_tree = base()
    key = sha256_text("\0".join([str(base_tree), *texts]))
    with _LOCK:
        if key in _COMPOSED:
            return _COMPOSED[key]
    with tempdirs.folder("specpath-compose") as tmp:
        ws = materialize(base_tree, Path(tmp) / "ws")
        try:
            for term, text in zip(parts, texts, strict=True):
                try:
                    ws.apply(text)
                except PatchApplyError as exc:
                    raise InputError(f"term {term!r} does not apply on top of the terms before it "
                                     f"({exc.rule})", file=str(root / "family.yaml"), item=expr) from None
            composed = ws.diff()
        finally:
            ws.close()
    with _LOCK:
        _COMPOSED[key] = composed
    return composed
