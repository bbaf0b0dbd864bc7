"""What `reach.reachable` needs from a module's text beyond the L1 facts: the lines that never run
(`liveness`: a binding or call there reaches nothing) and the names its top level reads when it runs (on
import) that the L1 bindings do not record -- ``main()`` under ``if __name__ == "__main__":``,
``LEVELS = (Level(1), ...)``, ``RULES = {"DE": Rule(...)}``, decorators and base classes, class-body
statements; for JavaScript and TypeScript every identifier of a top-level statement outside function bodies.

Read from the file as the index saw it (a regular file, not a link, at most `MAX_FILE_BYTES`); a file that
does not parse cannot be imported: every line of it is dead and its top level reads nothing.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Node

from reqbench.protocols.pace.l1.callgraph import MAX_FILE_BYTES
from reqbench.protocols.pace.l1.languages.javascript import SUFFIXES, _dialect, _parser
from reqbench.protocols.pace.l1.liveness import javascript as js_liveness
from reqbench.protocols.pace.l1.liveness.python import dead_lines

_JS_SKIPPED = ("function_declaration", "generator_function_declaration", "arrow_function", "function_expression",
               "function", "generator_function", "method_definition", "class_body")
"""Function and class bodies: they run when called, not on import."""


@dataclass(frozen=True)
class TopLevel:
    names: frozenset[str]
    """Names the module's top level reads outside dead code."""
    dead: frozenset[int]
    """Line numbers that never run (every line when the file does not parse)."""


def top_level(root: Path, rel: str) -> TopLevel:
    """The dead lines and top-level names of source module `rel` under `root` (module docstring)."""
    path = root / rel
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return TopLevel(frozenset(), frozenset())
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return TopLevel(frozenset(), frozenset())
    key = (rel, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if key not in _MEMO:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = _top_level(rel, text)
    return _MEMO[key]


_MEMO: dict[tuple[str, str], TopLevel] = {}
_MEMO_SIZE = 4096
"""Per process: a base file is the same text in every candidate tree, read once."""


def _top_level(rel: str, text: str) -> TopLevel:
    everything = frozenset(range(1, text.count("\n") + 2))
    if rel.endswith((".py", ".pyi")):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return TopLevel(frozenset(), everything)
        dead = dead_lines(rel, tree)
        return TopLevel(frozenset(_python(tree, dead)), frozenset(dead))
    if rel.endswith(SUFFIXES):
        root_node = _parser(_dialect(rel)).parse(text.encode("utf-8")).root_node
        if root_node.has_error:
            return TopLevel(frozenset(), everything)
        js_dead: set[int] = set()
        js_liveness.dead_statements(root_node, js_dead)
        return TopLevel(frozenset(_javascript(root_node, js_dead)), frozenset(js_dead))
    return TopLevel(frozenset(), frozenset())


def _python(tree: ast.Module, dead: set[int]) -> Iterator[str]:
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if getattr(node, "lineno", None) in dead:
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo += [*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)]
        elif isinstance(node, ast.ClassDef):
            todo += [*node.decorator_list, *node.bases, *node.keywords, *node.body]
        elif isinstance(node, ast.Name):
            yield node.id
        else:
            todo += list(ast.iter_child_nodes(node))


def _javascript(root: Node, dead: set[int]) -> Iterator[str]:
    todo = list(root.named_children)
    while todo:
        node = todo.pop()
        if node.start_point[0] + 1 in dead or node.type in _JS_SKIPPED:
            continue
        if node.type == "identifier" and node.text is not None:
            yield node.text.decode("utf-8", "replace")
        todo += node.named_children
