"""A tiny project with a src/ layout and four local releases, for `journey scaffold` tests (no PyPI).

``tally`` v1 has `add`; v2 adds `sub`; v3 only rewords a docstring (no test tells it apart: folded);
v4 adds `mul`. Every release ships ``tests/`` (v4's tests are the hidden suite): `test_add` passes on
every release (P2P), `test_sub` first passes at v2 (F2P of T1 = v1 -> v2), `test_mul` at v4 (F2P of
T2 = v2 -> v4, folding v3). The tests import ``tally`` as the project does: from ``src/``.
"""

from __future__ import annotations

from pathlib import Path

ADD = "def add(a, b):\n    return a + b\n"
SUB = "\n\ndef sub(a, b):\n    return a - b\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
SOURCES = {
    "v1": '"""Tally."""\n\n' + ADD,
    "v2": '"""Tally."""\n\n' + ADD + SUB,
    "v3": '"""Tally: small arithmetic."""\n\n' + ADD + SUB,
    "v4": '"""Tally: small arithmetic."""\n\n' + ADD + SUB + MUL,
}
TESTS = ("import tally\n\n\ndef test_add():\n    assert tally.add(2, 3) == 5\n\n\n"
         "def test_sub():\n    assert tally.sub(5, 3) == 2\n\n\n"
         "def test_mul():\n    assert tally.mul(4, 3) == 12\n")
F2P = {"T1": ["tests/test_tally.py::test_sub"], "T2": ["tests/test_tally.py::test_mul"]}
P2P = ["tests/test_tally.py::test_add"]


def write_releases(root: Path) -> list[Path]:
    """The four release trees under `root` (v1 .. v4), oldest first."""
    trees = []
    for label, source in SOURCES.items():
        tree = root / label
        (tree / "src" / "tally").mkdir(parents=True)
        (tree / "src" / "tally" / "__init__.py").write_text(source)
        (tree / "tests").mkdir()
        (tree / "tests" / "test_tally.py").write_text(TESTS)
        (tree / "pyproject.toml").write_text(f'[project]\nname = "tally"\nversion = "{label[1:]}"\n')
        trees.append(tree)
    return trees
