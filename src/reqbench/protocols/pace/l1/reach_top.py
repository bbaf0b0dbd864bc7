"""The names a module's top level reads when it runs (on import): roots of `reach.reachable` that the L1
bindings do not record -- ``main()`` under ``if __name__ == "__main__":``, ``LEVELS = (Level(1), ...)``,
``RULES = {"DE": Rule(...)}``, decorators and base classes, class-body statements; for JavaScript and
TypeScript every identifier of a top-level statement that is not a function body.

Read from the file as the index saw it (a regular file, not a link, at most `MAX_FILE_BYTES`); a file that
does not parse contributes nothing, as it cannot be imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from reqbench.protocols.pace.l1.callgraph import MAX_FILE_BYTES
from reqbench.protocols.pace.l1.languages.javascript import SUFFIXES, _dialect, _parser
from reqbench.protocols.pace.l1.liveness import javascript as js_liveness
from reqbench.protocols.pace.l1.liveness.python import dead_lines

_JS_SKIPPED = ("function_declaration", "generator_function_declaration", "arrow_function", "function_expression",
               "function", "generator_function", "method_definition", "class_body")
"""Function and class bodies: they run when called, not on import."""


def top_level_names(root: Path, rel: str) -> Iterator[str]:
    """Names read by the top level of module `rel` under `root` (module docstring)."""
    path = root / rel
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    if rel.endswith((".py", ".pyi")):
        yield from _python(rel, text)
    elif rel.endswith(SUFFIXES):
        yield from _javascript(rel, text)


def _python(rel: str, text: str) -> Iterator[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    dead = dead_lines(rel, tree)  # a name read under a guard that never holds is never read
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


def _javascript(rel: str, text: str) -> Iterator[str]:
    root = _parser(_dialect(rel)).parse(text.encode("utf-8")).root_node
    if root.has_error:
        return
    dead: set[int] = set()
    js_liveness.dead_statements(root, dead)
    todo = list(root.named_children)
    while todo:
        node = todo.pop()
        if node.start_point[0] + 1 in dead or node.type in _JS_SKIPPED:
            continue
        if node.type == "identifier" and node.text is not None:
            yield node.text.decode("utf-8", "replace")
        todo += node.named_children
