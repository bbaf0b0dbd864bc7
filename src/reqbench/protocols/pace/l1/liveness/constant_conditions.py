"""Whether a Python guard's condition can ever hold at run time: constant folding for dead-code detection.

`truth(expr, module_names)` is True or False when the condition has that truth value on every run, None
when it depends on the run. Decided statically, and only for conditions no running program can change:

* constant-only expressions (numbers, short strings, ``True``/``False``/``None``, ``not``, arithmetic
  without powers or shifts, comparisons of two literals);
* ``and``/``or`` with a decided operand (``False and x`` is false whatever ``x`` is, ``x or True`` true);
* ``__name__`` compared with a string that is neither ``"__main__"`` nor one of the module's own dotted
  names (``if __name__ == "<never>":``);
* ``TYPE_CHECKING`` / ``typing.TYPE_CHECKING``: false when the program runs (type checkers only);
* ``sys.version_info`` (whole, ``[0]``, ``[:2]``, ``.major``, ``.minor``) compared with a literal: decided
  when the comparison has the same value for every Python 3 release (3.0 to 3.99), so ``< (2,)``,
  ``[0] == 2`` and ``>= (4,)`` never hold.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

_MAX_CONST = 10**6
_PY3 = [(3, minor, micro) for minor in range(100) for micro in (0, 99)]
"""The interpreter versions a version check is evaluated for: every Python 3 release."""
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Mod: lambda a, b: a % b if b else 1}


class _Unknown(Exception):
    """The expression reads something the run decides."""


def fold(node: ast.AST) -> object:
    """The value of a constant-only expression; raises ValueError for anything that reads a name or calls."""
    if isinstance(node, ast.Expression):
        return fold(node.body)
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool | int | float | str)):
        if isinstance(node.value, int | float) and abs(node.value) > _MAX_CONST:
            raise ValueError("large constant")
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(fold(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub | ast.UAdd):
        value: Any = fold(node.operand)
        return not value if isinstance(node.op, ast.Not) else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BoolOp):
        values = [fold(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = fold(node.left), fold(node.right)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
            raise ValueError("non-numeric arithmetic")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        return _chain(fold(node.left), [(op, fold(r)) for op, r in zip(node.ops, node.comparators, strict=True)])
    raise ValueError("not a constant expression")


def _chain(left: Any, rest: list[tuple[ast.cmpop, Any]]) -> bool:
    for op, right in rest:
        cmp = _COMPARE.get(type(op))
        if cmp is None or not cmp(left, right):
            return False
        left = right
    return True


def truth(node: ast.expr, module_names: frozenset[str] = frozenset()) -> bool | None:
    """The truth value `node` has on every run, or None when the run decides it (module docstring)."""
    try:
        return bool(fold(node))
    except (ValueError, TypeError, ZeroDivisionError, RecursionError):
        pass
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand, module_names)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [truth(v, module_names) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # `or`: one true operand decides; `and`: one false one
        if decisive in values:
            return decisive
        return (not decisive) if all(v is (not decisive) for v in values) else None
    if _is_type_checking(node):
        return False
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _special_compare(node.left, node.ops[0], node.comparators[0], module_names)
    return None


def _is_type_checking(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "TYPE_CHECKING") or (
        isinstance(node, ast.Attribute) and node.attr == "TYPE_CHECKING"
        and isinstance(node.value, ast.Name) and node.value.id in ("typing", "typing_extensions"))


def _special_compare(left: ast.expr, op: ast.cmpop, right: ast.expr, module_names: frozenset[str]) -> bool | None:
    """``__name__`` or ``sys.version_info`` against a literal, either way round."""
    for subject, other, flipped in ((left, right, False), (right, left, True)):
        try:
            literal = fold(other)
        except (ValueError, TypeError, ZeroDivisionError, RecursionError):
            continue
        if isinstance(subject, ast.Name) and subject.id == "__name__" and isinstance(literal, str):
            if literal == "__main__" or literal in module_names or type(op) not in (ast.Eq, ast.NotEq):
                return None
            return isinstance(op, ast.NotEq)
        versions = _version_values(subject)
        if versions is not None:
            cmp = _COMPARE.get(type(op))
            if cmp is None:
                return None
            results = {bool(cmp(literal, v) if flipped else cmp(v, literal)) for v in versions}
            return results.pop() if len(results) == 1 else None
    return None


def _version_values(node: ast.expr) -> list[Any] | None:
    """What ``sys.version_info`` (or its part named by `node`) is on every Python 3 release, or None."""
    def is_version_info(n: ast.expr) -> bool:
        return (isinstance(n, ast.Attribute) and n.attr == "version_info" and isinstance(n.value, ast.Name)
                and n.value.id == "sys") or (isinstance(n, ast.Name) and n.id == "version_info")

    if is_version_info(node):
        return list(_PY3)
    if isinstance(node, ast.Attribute) and is_version_info(node.value) and node.attr in ("major", "minor"):
        return [v[0 if node.attr == "major" else 1] for v in _PY3]
    if isinstance(node, ast.Subscript) and is_version_info(node.value):
        index = node.slice
        try:
            if isinstance(index, ast.Slice):
                bounds = [fold(b) if b is not None else None for b in (index.lower, index.upper)]
                if index.step is not None or not all(b is None or type(b) is int for b in bounds):
                    return None
                part = slice(*(b if isinstance(b, int) else None for b in bounds))
                return [v[part] for v in _PY3]
            position = fold(index)
        except (ValueError, TypeError):
            return None
        return [v[position] for v in _PY3] if position in (0, 1) else None
    return None


def module_names(path: str) -> frozenset[str]:
    """The dotted names the module at `path` may run under: every suffix of its dotted path
    (``src/pkg/mod.py`` -> ``src.pkg.mod``, ``pkg.mod``, ``mod``; a package's ``__init__`` drops out)."""
    parts = path.rsplit(".", 1)[0].split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return frozenset(".".join(parts[i:]) for i in range(len(parts)))
