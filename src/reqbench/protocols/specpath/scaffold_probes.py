"""Candidate probes for a scaffolded family: the test functions a newer release added or changed.

SpecPath probes come from the upstream tests of the change. Given the unpacked trees of releases A and
B, every Python test file of B (``test_*.py`` / ``*_test.py`` or any file under a ``tests``/``test``
folder) is compared with A's copy at the *source* level (`ast`): a top-level ``test*`` function whose
text is new or different is a candidate, and so is every new or changed ``test*`` method of a
test class (pytest's ``Test*``, or a unittest class; the class is copied whole, its changed methods
are the candidates). The copies keep
their text byte for byte under an origin comment, after the module-level imports of their file and the
module-level names they use (one level: constants, helpers, fixtures defined in that file).

This is a starting point a person reviews, not a verdict: a changed test may check something outside
the contract, a helper from another file is not copied, and test methods of a mixin class (one that is
not itself a test class) are not seen -- list them under the concrete test class that inherits them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Candidates:
    """What `collect` found: the hidden test file's text, its probe ids and what was left out."""

    text: str
    probes: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    """probe id -> ``path::name (added|changed)`` in release B."""
    notes: list[str] = field(default_factory=list)


def is_test_file(rel: str) -> bool:
    """Whether a tree-relative path is a Python test module."""
    parts = rel.split("/")
    name = parts[-1]
    if not name.endswith(".py") or name == "conftest.py":
        return False
    return (name.startswith("test_") or name.endswith("_test.py")
            or any(p in ("tests", "test", "testing") for p in parts[:-1]))


def _segment(source: str, node: ast.AST) -> str:
    """The node's source text including its decorators."""
    lines = source.splitlines(keepends=True)
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
    return "".join(lines[start - 1:node.end_lineno])  # type: ignore[attr-defined]


def _test_class(node: ast.ClassDef) -> bool:
    """pytest's ``Test*`` classes, and unittest classes (a base named ``*TestCase``, or a name ending in
    ``Test``/``Tests``, the unittest convention)."""
    bases = [ast.unparse(b) for b in node.bases]
    return (node.name.startswith("Test") or node.name.endswith(("Test", "Tests"))
            or any(b.split(".")[-1].endswith("TestCase") for b in bases))


def _tests(source: str) -> dict[str, tuple[ast.AST, str]]:
    """``name`` or ``Class::method`` -> (node, text) of every test in a module."""
    out: dict[str, tuple[ast.AST, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, _FUNCS) and node.name.startswith("test"):
            out[node.name] = (node, _segment(source, node))
        elif isinstance(node, ast.ClassDef) and _test_class(node):
            for item in node.body:
                if isinstance(item, _FUNCS) and item.name.startswith("test"):
                    out[f"{node.name}::{item.name}"] = (node, _segment(source, item))
    return out


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (*_FUNCS, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _used(nodes: list[ast.AST]) -> set[str]:
    names = {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
    args = {a.arg for node in nodes for n in ast.walk(node) if isinstance(n, ast.arguments)
            for a in (*n.posonlyargs, *n.args, *n.kwonlyargs)}
    return names | args  # fixtures arrive as arguments


def _support(source: str, tree: ast.Module, chosen: list[ast.AST]) -> tuple[list[str], list[str]]:
    """(import statements, helper definitions) of the module that the chosen tests need."""
    imports = [_segment(source, n).rstrip("\n") for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    used = _used(chosen)
    helpers = [_segment(source, n) for n in tree.body
               if n not in chosen and not (isinstance(n, _FUNCS) and n.name.startswith("test"))
               and not (isinstance(n, ast.ClassDef) and _test_class(n)) and _defined(n) & used]
    return imports, helpers


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def collect(old_tree: Path, new_tree: Path, test_files: list[str], header: str) -> Candidates:
    """Candidate probes of `test_files` (B-relative paths) into one module named ``test_probes.py``."""
    result = Candidates("")
    imports: dict[str, None] = {}
    blocks: list[str] = []
    taken: set[str] = set()
    for rel in sorted(test_files):
        new_src = _read(new_tree / rel)
        if new_src is None:
            continue
        old_src = _read(old_tree / rel) or ""
        try:
            tree = ast.parse(new_src)
            new_tests = _tests(new_src)
            old_tests = _tests(old_src) if old_src else {}
        except SyntaxError as exc:
            result.notes.append(f"{rel}: not parsed ({exc.msg}, line {exc.lineno}); no candidates taken")
            continue
        changed = {k: ("added" if k not in old_tests else "changed") for k, (_, text) in new_tests.items()
                   if k not in old_tests or old_tests[k][1] != text}
        chosen: list[ast.AST] = []
        for key, how in changed.items():
            node = new_tests[key][0]
            top = key.split("::")[0]
            if top in taken and node not in chosen:
                result.notes.append(f"{rel}::{key}: skipped, a test named {top!r} was already taken from "
                                    "another file")
                continue
            if node not in chosen:
                chosen.append(node)
                taken.add(top)
            probe = f"test_probes.py::{key}"
            result.probes.append(probe)
            result.origins[probe] = f"{rel}::{key} ({how})"
        if not chosen:
            continue
        file_imports, helpers = _support(new_src, tree, chosen)
        imports.update(dict.fromkeys(file_imports))
        for text in helpers:
            blocks.append(f"# origin: {rel} (module-level name the tests below use)\n{text}")
        for node in chosen:
            name = node.name  # type: ignore[attr-defined]
            keys = [k for k in changed if k.split("::")[0] == name]
            how = changed[name] if keys == [name] else ", ".join(f"{k} {changed[k]}" for k in keys)
            blocks.append(f"# origin: {rel}::{name} ({how})\n{_segment(new_src, node)}")
    future = [i for i in imports if i.startswith("from __future__")]
    rest = [i for i in imports if i not in future]
    parts = [header.rstrip("\n") + "\n", *(["\n".join(future) + "\n"] if future else []),
             *(["\n".join(rest) + "\n"] if rest else []), *blocks]
    result.text = "\n\n\n".join(p.rstrip("\n") for p in parts) + "\n"
    return result
