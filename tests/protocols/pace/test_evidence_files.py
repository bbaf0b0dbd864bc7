"""L1 seeds for files real releases change: a top-level file named like a class (`CHANGELOG.rst`) is a
path when it exists, and a type stub (`.pyi`) is indexed like Python, so its `__all__` is an export edge."""

from __future__ import annotations

from pathlib import Path

from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.l1.evidence import Localizer
from reqbench.protocols.pace.l1.languages import facts_for
from reqbench.protocols.pace.models import CodePoint


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _point(hint: str) -> CodePoint:
    return CodePoint.model_validate({"id": "P", "description": "d", "provenance": "explicit", "weight": 1,
                                     "retrieval_hints": [hint],
                                     "criteria": [{"criterion_id": "P.c1", "text": "t"}]})


def test_stub_exports_are_indexed() -> None:
    facts = facts_for("pkg/mod.pyi", "__all__ = ['argmin']\n\ndef argmin(xs: list[int]) -> int: ...\n")
    assert facts.language == "python" and facts.all_names == ["argmin"]
    assert [d.qname for d in facts.decls] == ["argmin"]


def test_changelog_and_stub_hints_reach_their_changes(tmp_path: Path) -> None:
    base = _tree(tmp_path / "base", {"CHANGELOG.rst": "v1\n", "pkg/mod.pyi": "__all__ = ['a']\n"})
    cand = _tree(tmp_path / "cand", {"CHANGELOG.rst": "v2: argmin\nv1\n",
                                     "pkg/mod.pyi": "__all__ = ['a', 'argmin']\n"})
    loc = Localizer(RepoIndex.build(base), RepoIndex.build(cand), ["CHANGELOG.rst", "pkg/mod.pyi"])
    changelog = loc.package(_point("CHANGELOG.rst"))
    assert changelog.unresolved_seeds == [] and "+v2: argmin" in changelog.diffs["CHANGELOG.rst"]
    stub = loc.package(_point("pkg/mod.pyi"))
    assert ("export", "argmin", "candidate") in {(c.kind, c.target, c.origin) for c in stub.connections}
    assert loc.package(_point("Missing.rst")).unresolved_seeds == ["Missing.rst"]  # a name that is no file


def test_a_function_local_import_is_an_import_edge_of_that_function() -> None:
    facts = facts_for("pkg/__init__.py", "def cached(cache):\n    from ._cached import _wrapper\n"
                                         "    return _wrapper(cache)\n")
    imports = [(b.source, b.target, b.line) for b in facts.bindings if b.kind.value == "import"]
    assert imports == [("cached", "._cached._wrapper", 2)]
    assert "_wrapper" in facts.decls[0].calls
