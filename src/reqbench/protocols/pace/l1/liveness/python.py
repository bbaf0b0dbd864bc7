"""Which lines of a Python file can run, and the code text each holds (comments and literals-only
statements removed): the Python half of `liveness.credited_lines`.

Dead, decided by `ast` over the whole file (so a guard split over lines is read like any other):

* the body of an ``if``/``elif``/``while`` whose condition never holds (`constant_conditions.truth`), the ``else`` of
  one that always holds, the body of a ``for`` over an empty literal;
* statements after an unconditional ``return``/``raise``/``continue``/``break`` in the same block;
* a function or class defined inside a function whose name nothing in that function uses (undecorated),
  a lambda written as a statement or bound to a local name nothing uses;
* statements that are only a literal (docstrings, bare strings): they hold text, not code.

Kept lines lose their comments, and a string spanning lines keeps none of its inner lines (its words are
data, not code).
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter

from reqbench.protocols.pace.l1.liveness.constant_conditions import module_names, truth

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def credited_lines(path: str, text: str) -> dict[int, str] | None:
    """Line number -> code text of every line of `text` that can run; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    dead = dead_lines(path, tree)
    return {n: line for n, line in _code_text(text).items() if n not in dead and line.strip()}


def dead_lines(path: str, tree: ast.Module) -> set[int]:
    """Line numbers of the statements of module `tree` (file `path`) that never run (module docstring)."""
    walker = _DeadCode(module_names(path))
    walker.block(tree.body, scope=None)
    return walker.lines


class _DeadCode:
    """Collects the line numbers of statements that never run (module docstring)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.lines: set[int] = set()
        self._reads: dict[int, Counter[str]] = {}  # node id -> names read below it (the tree outlives the walk)

    def loaded(self, scope: ast.AST, skip: ast.AST) -> set[str]:
        """Names read anywhere in `scope` outside `skip` (a definition's use of itself does not call it)."""
        outside = self.reads(scope) - self.reads(skip)
        return set(outside)

    def reads(self, node: ast.AST) -> Counter[str]:
        if id(node) not in self._reads:
            self._reads[id(node)] = Counter(
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store))
        return self._reads[id(node)]

    def mark(self, node: ast.stmt | ast.expr) -> None:
        self.lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    def block(self, body: list[ast.stmt], scope: ast.AST | None, dead: bool = False) -> None:
        """Walk one block; `scope` is the enclosing function (None at module or class level)."""
        exited = dead
        for stmt in body:
            if exited:
                self.mark(stmt)
                continue
            self.statement(stmt, scope)
            exited = isinstance(stmt, _EXITS)

    def statement(self, stmt: ast.stmt, scope: ast.AST | None) -> None:
        if isinstance(stmt, ast.If | ast.While):
            held = truth(stmt.test, self.names)
            self.block(stmt.body, scope, dead=held is False)
            self.block(stmt.orelse, scope, dead=held is True and isinstance(stmt, ast.If))
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            self.block(stmt.body, scope, dead=_empty_literal(stmt.iter))
            self.block(stmt.orelse, scope)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant | ast.Lambda):
            self.mark(stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and isinstance(stmt.value, ast.Lambda) \
                and scope is not None and not _targets(stmt) & self.loaded(scope, stmt):
            self.mark(stmt)
        elif isinstance(stmt, _DEFINITIONS):
            if scope is not None and not stmt.decorator_list and stmt.name not in self.loaded(scope, stmt):
                self.mark(stmt)
                return
            self.block(stmt.body, None if isinstance(stmt, ast.ClassDef) else stmt)
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.ExceptHandler | ast.match_case):
                    self.block(child.body, scope)
            for field in ("body", "orelse", "finalbody"):
                value = getattr(stmt, field, None)
                if isinstance(value, list):
                    self.block(value, scope)


def _empty_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    return isinstance(node, ast.Constant) and node.value in ("", b"")


def _targets(stmt: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return {t.id for t in targets if isinstance(t, ast.Name)} or {"<not a plain name>"}


def _code_text(text: str) -> dict[int, str]:
    """Line number -> the line without its comment; a string spanning lines becomes ``""`` on its first
    line, its inner lines are dropped and its last line keeps only what follows it."""
    lines = text.splitlines()
    cuts: dict[int, list[tuple[int, int, str]]] = {}
    dropped: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            (srow, scol), (erow, ecol) = tok.start, tok.end
            if tok.type == tokenize.COMMENT:
                cuts.setdefault(srow, []).append((scol, ecol, ""))
            elif tok.type == tokenize.STRING and erow > srow:
                cuts.setdefault(srow, []).append((scol, len(lines[srow - 1]), '""'))
                dropped.update(range(srow + 1, erow))
                cuts.setdefault(erow, []).append((0, ecol, ""))
    except (tokenize.TokenError, SyntaxError, IndexError):
        pass
    out: dict[int, str] = {}
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        for start, end, replacement in sorted(cuts.get(number, []), reverse=True):
            line = line[:start] + replacement + line[end:]
        out[number] = line.rstrip()
    return out
