"""Which of a candidate's added lines the `token-overlap` heuristic may count: code the candidate wires in.

The heuristic measures token recall against the reference's evidence, so any added text that carries the
right identifiers would raise it -- including code that never runs (a block under ``if 0:``, a function
nothing calls). PACE-Bench's L1 rule is that an integration claim needs "a source, a target and one of
these observed edges" (appendix §13, the connection inventory), so a line counts only when it is live and
wired (`wired_package`):

* **live**: not under a constant-false guard (Python ``if``/``elif``/``while`` whose test folds to a falsy
  constant, e.g. ``0``, ``False``, ``1 == 2``; JavaScript ``if (0)``, ``if (false)`` ...) and not after an
  unconditional ``return``/``raise``/``throw``/``continue``/``break`` in the same block;
* **wired**: inside a changed declaration that is reachable -- a modified base declaration, a declaration in
  a test file (the test runner discovers it), or an added one that an edge of the L1 inventory targets (a
  call, import, export, registry, assignment or configuration connection, candidate or base) or whose name a
  live line of another reachable declaration uses; or a module-level line that is itself an inventory edge
  or a constant assignment (``NAME = 90``).

Everything else in source files (dead blocks, unreached new functions, bare module-level expressions) is
left out, so stuffing identifiers into code that is never wired in scores no more than the empty
candidate. Documentation and configuration files have no call graph and keep every added line.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

from reqbench.protocols.pace.l1.callgraph import last_segment
from reqbench.protocols.pace.l1.evidence import EvidenceItem, EvidencePackage, is_test_path
from reqbench.protocols.pace.l1.languages import is_source

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_PY_GUARD = re.compile(r"^(\s*)(?:if|elif|while)\s+(.+?)\s*:\s*(?:#.*)?$")
_JS_GUARD = re.compile(r"^(\s*)(?:\}\s*else\s+)?(?:if|while)\s*\((.*)\)\s*\{\s*$")
_JS_FALSY = {"0", "false", "null", "undefined", "''", '""', "``", "nan", "void 0", "!1", "!true", "0.0"}
_EXIT = re.compile(r"^(\s*)(?:return\b|raise\b|throw\b|continue\b|break\b)")
_CONST = re.compile(r"^[A-Za-z_]\w*\s*(?::\s*[\w\[\], .|]+)?\s*=\s*"
                    r"(?:-?\d[\d_.]*|True|False|None|'[^']*'|\"[^\"]*\")\s*,?\s*$")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_MAX_CONST = 10**6


def _fold(node: ast.AST) -> object:
    """The value of a constant-only expression (numbers, short strings, bool/None, not/and/or, arithmetic
    without powers or shifts, comparisons); raises ValueError for anything that reads a name or calls."""
    if isinstance(node, ast.Expression):
        return _fold(node.body)
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool | int | float | str)):
        if isinstance(node.value, int | float) and abs(node.value) > _MAX_CONST:
            raise ValueError("large constant")
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub | ast.UAdd):
        value = _fold(node.operand)
        return not value if isinstance(node.op, ast.Not) else (-value if isinstance(node.op, ast.USub) else value)  # type: ignore[operator]
    if isinstance(node, ast.BoolOp):
        values = [_fold(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Mod):
        left, right = _fold(node.left), _fold(node.right)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
            raise ValueError("non-numeric arithmetic")
        ops: dict[type, Callable[[Any, Any], Any]] = {
            ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
            ast.Mod: lambda a, b: a % b if b else 1}
        return ops[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        left = _fold(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _fold(right_node)
            compare: dict[type, Callable[[Any, Any], Any]] = {
                ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
            cmp = compare.get(type(op))
            if cmp is None or not cmp(left, right):
                return False
            left = right
        return True
    raise ValueError("not a constant expression")


def never_true(condition: str, javascript: bool = False) -> bool:
    """Whether a guard's condition is a constant that is never true (its block is dead code)."""
    text = condition.strip()
    if javascript:
        return text.lower() in _JS_FALSY
    try:
        return not _fold(ast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, RecursionError):
        return False


def _new_side(diff: str) -> Iterator[tuple[int, str, bool]]:
    """(new-file line number, text, added) of every line on the new side of a unified diff."""
    number = 0
    for raw in diff.splitlines():
        match = _HUNK.match(raw)
        if match:
            number = int(match.group(1))
            continue
        if raw.startswith(("+++", "---")) or raw.startswith("-") or not number:
            continue
        if raw.startswith(("+", " ")) or raw == "":
            yield number, raw[1:], raw.startswith("+")
            number += 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def live_added(diff: str, javascript: bool = False) -> list[tuple[int, str]]:
    """(line number, text) of the added lines of `diff` that can run (see module docstring: **live**)."""
    out: list[tuple[int, str]] = []
    dead_at: int | None = None  # indentation of the dead block's guard or exit statement
    exit_block = False
    depth = 0  # JavaScript: brace depth inside a dead block
    for number, line, added in _new_side(diff):
        if not line.strip():
            continue
        indent = _indent(line)
        if dead_at is not None:
            if javascript and not exit_block:
                depth += line.count("{") - line.count("}")
                if depth <= 0:
                    dead_at = None
                continue
            if exit_block and indent == dead_at:
                continue  # a statement after the block's exit
            if exit_block and indent > dead_at:
                if added:  # the exit statement's own continuation line
                    out.append((number, line))
                continue
            if indent > dead_at:
                continue  # inside the dead guard's block
            dead_at = None
        guard = (_JS_GUARD if javascript else _PY_GUARD).match(line)
        if guard and never_true(guard.group(2), javascript):
            dead_at, exit_block, depth = indent, False, 1
        elif _EXIT.match(line) and not line.rstrip().endswith((":", "{")):
            dead_at, exit_block = indent, True
        if added:
            out.append((number, line))
    return out


def _enclosing(items: list[EvidenceItem], file: str, number: int) -> EvidenceItem | None:
    """The innermost changed declaration of `file` that holds line `number`."""
    holding = [i for i in items if i.file == file and i.start_line <= number <= i.end_line]
    return min(holding, key=lambda i: i.end_line - i.start_line, default=None)


def wired_package(pkg: EvidencePackage) -> EvidencePackage:
    """A copy of `pkg` holding only what the candidate wires in (module docstring): its diffs reduced to the
    wired added lines (one ``+line`` each, in file order) and its candidate connections to the live ones
    of reachable code; base connections stay. The token-overlap heuristic reads this copy only."""
    items = [i for i in pkg.changed if i.change in ("added", "modified")]
    code = {f: d for f, d in pkg.diffs.items() if is_source(f)}
    live = {f: live_added(d, javascript=not f.endswith((".py", ".pyi"))) for f, d in code.items()}
    placed = {(f, n): (line, _enclosing(items, f, n)) for f, lines in live.items() for n, line in lines}
    edges = [c for c in pkg.connections
             if c.origin != "candidate" or c.file not in code or (c.file, c.line) in placed]
    targeted = {last_segment(c.target) for c in edges} - {""}
    reached = {i.qname for i in items
               if i.change == "modified" or _named(i) & targeted or is_test_path(i.file)}
    grown = True
    while grown:  # a declaration a reached one's live lines use is reached too
        used = {w for line, item in placed.values() if item is not None and item.qname in reached
                for w in _IDENT.findall(line)}
        more = reached | {i.qname for i in items if _named(i) & used}
        grown, reached = more != reached, more
    edge_lines = {(c.file, c.line) for c in edges if c.origin == "candidate"}
    kept: dict[str, list[str]] = {}
    for (file, number), (line, item) in sorted(placed.items()):
        if item is None and ((file, number) in edge_lines or _CONST.match(line.strip())) \
                or item is not None and item.qname in reached:
            kept.setdefault(file, []).append("+" + line)
    wired_edges = [c for c in edges if c.origin != "candidate" or c.file not in code
                   or _wired_at(placed, reached, c.file, c.line)]
    diffs = {f: "\n".join(lines) for f, lines in kept.items()}
    diffs.update({f: d for f, d in pkg.diffs.items() if f not in code})  # docs and configuration: no call graph
    return dataclasses.replace(pkg, diffs=diffs, connections=wired_edges)


def _wired_at(placed: dict[tuple[str, int], tuple[str, EvidenceItem | None]], reached: set[str], file: str,
              number: int) -> bool:
    _, item = placed[(file, number)]
    return item is None or item.qname in reached


def _named(item: EvidenceItem) -> set[str]:
    """The names an edge may use for a declaration: its own, and its owner's for a method."""
    parts = item.qname.split(".")
    return {parts[-1], *(parts[:-1][-1:])}
