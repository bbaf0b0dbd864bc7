"""The import graph of `src/reqbench`, read from the source with `ast` (every import, including those inside
functions: an import moved into a function to dodge a cycle is still a cycle; only imports under
``if TYPE_CHECKING:``, which never run, are left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "reqbench"
SKIP = ("reqbench.examples",)  # bundled suites: data, not the harness


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, current: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = current.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _runtime_nodes(tree: ast.AST, type_only: bool = False) -> list[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:`` (with `type_only`, those too)."""
    out: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if not type_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def build_graph(type_only: bool = False) -> nx.DiGraph:
    """The graph of runtime imports; with `type_only`, imports under ``if TYPE_CHECKING:`` count too."""
    files = {module_name(p): p for p in (SRC / PACKAGE).rglob("*.py")}
    files = {m: p for m, p in files.items() if not m.startswith(SKIP)}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _runtime_nodes(tree, type_only):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(node, module, path.name == "__init__.py")
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != module and target.startswith(PACKAGE):
                    graph.add_edge(module, target)
    return graph


def package_cycles(graph: nx.DiGraph) -> list[list[str]]:
    """Cycles between modules, ignoring a package's `__init__` importing its own submodules (re-exports)."""
    pruned = graph.copy()
    for a, b in list(pruned.edges):
        if b.startswith(a + "."):  # package __init__ re-exporting its children
            pruned.remove_edge(a, b)
    return [sorted(c) for c in nx.simple_cycles(pruned) if len(c) > 1]
