"""Which lines of a JavaScript/TypeScript file can run, and the code text each holds: the JS/TS half of
`liveness.credited_lines`, over the same tree-sitter grammars as the L1 language layer.

Dead, the equivalents of the Python rules:

* the consequence of an ``if`` / the body of a ``while`` whose condition never holds, the ``else`` of an
  ``if`` that always holds, the body of a ``for ... of []``; a condition is decided when it folds to a
  constant (`truth`): ``0``, ``false``, ``null``, ``undefined``, ``NaN``, ``''``, ``void 0``, ``!true``,
  ``false && x``, ``x || true``, comparisons of two literals (``1 === 2``), and ``typeof x`` compared with a
  string ``typeof`` never returns;
* statements after an unconditional ``return``/``throw``/``break``/``continue`` in the same block;
* a function or class declared inside a function whose name nothing in that function uses, a function
  expression or arrow function written as a statement or bound to a local name nothing uses;
* expression statements that are only a literal (``'use strict'`` and stuffed strings).

Kept lines lose their comments, and a string or template spanning lines keeps none of its inner lines.
"""

from __future__ import annotations

from tree_sitter import Node

from reqbench.protocols.pace.l1.languages.javascript import _dialect, _parser

_EXITS = ("return_statement", "throw_statement", "break_statement", "continue_statement")
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")
_NESTED = ("function_declaration", "generator_function_declaration", "class_declaration")
_SCOPES = ("function_declaration", "generator_function_declaration", "method_definition", "arrow_function",
           "function_expression", "function", "generator_function")
_LITERALS = ("string", "number", "template_string", "true", "false", "null", "undefined")
_TYPEOF = {"undefined", "object", "boolean", "number", "bigint", "string", "symbol", "function"}
_UNDECIDED = object()


def _t(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def credited_lines(path: str, text: str) -> dict[int, str] | None:
    """Line number -> code text of every line of `text` that can run; None when it does not parse."""
    root = _parser(_dialect(path)).parse(text.encode("utf-8")).root_node
    if root.has_error:
        return None
    dead: set[int] = set()
    cuts: dict[int, list[tuple[int, int, str]]] = {}
    _walk(root, None, dead, cuts)
    out: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if number in dead:
            continue
        for start, end, replacement in sorted(cuts.get(number, []), reverse=True):
            line = line[:start] + replacement + line[end:]
        if line.strip():
            out[number] = line.rstrip()
    return out


def dead_statements(root: Node, dead: set[int]) -> None:
    """Add to `dead` the line numbers of the statements below `root` that never run."""
    _walk(root, None, dead, {})


def _mark(node: Node, dead: set[int]) -> None:
    dead.update(range(node.start_point[0] + 1, node.end_point[0] + 2))


def _walk(node: Node, scope: Node | None, dead: set[int], cuts: dict[int, list[tuple[int, int, str]]]) -> None:
    """Mark dead statements below `node`; `scope` is the enclosing function body (None at module level).
    Columns are byte offsets, which equal character offsets on the ASCII lines code is written in."""
    stack: list[tuple[Node, Node | None]] = [(node, scope)]
    while stack:
        current, scope = stack.pop()
        if current.type in ("comment", "string", "template_string") and current.end_point[0] > current.start_point[0] \
                or current.type == "comment":
            _cut(current, cuts, dead)
            continue
        if _dead_statement(current, scope):
            _mark(current, dead)
            continue
        children = current.named_children
        if current.type == "statement_block" or current.type == "program":
            after_exit = False
            for child in children:
                if after_exit and child.type != "comment":
                    _mark(child, dead)
                    continue
                stack.append((child, scope))
                after_exit = child.type in _EXITS
            continue
        dead_children = _dead_branches(current)
        inner = current if current.type in _SCOPES else scope
        for child in children:
            if child.id in dead_children:
                _mark(child, dead)
            else:
                stack.append((child, inner))


def _cut(node: Node, cuts: dict[int, list[tuple[int, int, str]]], dead: set[int]) -> None:
    (srow, scol), (erow, ecol) = node.start_point, node.end_point
    keep = "" if node.type == "comment" else '""'
    if srow == erow:
        cuts.setdefault(srow + 1, []).append((scol, ecol, keep))
        return
    cuts.setdefault(srow + 1, []).append((scol, 1 << 30, keep))
    dead.update(range(srow + 2, erow + 1))
    cuts.setdefault(erow + 1, []).append((0, ecol, ""))


def _dead_branches(node: Node) -> set[int]:
    """Ids of the children of a guard or loop that never run."""
    if node.type in ("if_statement", "while_statement"):
        held = truth(node.child_by_field_name("condition"))
        body = node.child_by_field_name("consequence" if node.type == "if_statement" else "body")
        alternative = node.child_by_field_name("alternative")
        out = {body.id} if held is False and body is not None else set()
        if held is True and alternative is not None and node.type == "if_statement":
            out.add(alternative.id)
        return out
    if node.type == "for_in_statement":
        right, body = node.child_by_field_name("right"), node.child_by_field_name("body")
        if right is not None and body is not None and right.type == "array" and not right.named_children \
                and any(c.type == "of" for c in node.children):
            return {body.id}
    return set()


def _dead_statement(node: Node, scope: Node | None) -> bool:
    """A literal-only statement, a function value nobody can call, or a nested declaration nobody uses."""
    if node.type == "expression_statement":
        inner = node.named_children[0] if node.named_children else None
        while inner is not None and inner.type == "parenthesized_expression" and inner.named_children:
            inner = inner.named_children[0]
        return inner is not None and (inner.type in _LITERALS or inner.type in _FUNCTION_VALUES)
    if scope is None:
        return False
    if node.type in _NESTED:
        name = node.child_by_field_name("name")
        return name is not None and _t(name) not in _used(scope, node)
    if node.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        return bool(declarators) and all(
            (value := d.child_by_field_name("value")) is not None and value.type in _FUNCTION_VALUES
            and (name := d.child_by_field_name("name")) is not None and name.type == "identifier"
            and _t(name) not in _used(scope, d) for d in declarators)
    return False


def _used(scope: Node, skip: Node) -> set[str]:
    """Identifiers written anywhere in `scope` outside `skip`."""
    out: set[str] = set()
    stack = [scope]
    while stack:
        node = stack.pop()
        if node.id == skip.id:
            continue
        if node.type in ("identifier", "shorthand_property_identifier", "type_identifier"):
            out.add(_t(node))
        stack.extend(node.children)
    return out


def truth(node: Node | None) -> bool | None:
    """The truth value a JS/TS condition has on every run, or None when the run decides it."""
    value = _fold(node)
    return None if value is _UNDECIDED else bool(value) and value == value  # NaN is falsy


def _fold(node: Node | None) -> object:
    if node is None:
        return _UNDECIDED
    kind = node.type
    if kind == "parenthesized_expression" and len(node.named_children) == 1:
        return _fold(node.named_children[0])
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("null", "undefined") or (kind == "identifier" and _t(node) in ("undefined", "NaN")):
        return float("nan") if _t(node) == "NaN" else None
    if kind == "number":
        try:
            return float(_t(node).replace("_", "")) if not _t(node).lower().startswith("0x") else int(_t(node), 16)
        except ValueError:
            return _UNDECIDED
    if kind == "string" or (kind == "template_string" and not any(
            c.type == "template_substitution" for c in node.named_children)):
        return _t(node)[1:-1]
    if kind == "unary_expression":
        return _unary(node)
    if kind == "binary_expression":
        return _binary(node)
    return _UNDECIDED


def _unary(node: Node) -> object:
    operator = _t(node.child_by_field_name("operator") or node.children[0])
    argument = node.child_by_field_name("argument")
    if operator == "void":
        return None
    value = _fold(argument)
    if operator == "!":
        return _UNDECIDED if value is _UNDECIDED else not value
    if operator in ("-", "+") and isinstance(value, int | float) and not isinstance(value, bool):
        return -value if operator == "-" else value
    return _UNDECIDED


def _binary(node: Node) -> object:
    operator_node = node.child_by_field_name("operator")
    operator = _t(operator_node) if operator_node is not None else ""
    left_node, right_node = node.child_by_field_name("left"), node.child_by_field_name("right")
    left, right = _fold(left_node), _fold(right_node)
    if operator in ("&&", "||"):
        decisive = operator == "||"
        for value in (left, right):
            if value is not _UNDECIDED and bool(value) is decisive:
                return decisive
        return _UNDECIDED if _UNDECIDED in (left, right) else (not decisive)
    if operator not in ("===", "==", "!==", "!="):
        return _UNDECIDED
    typeof = _typeof_against(left_node, right) if right is not _UNDECIDED else None
    typeof = typeof if typeof is not None else (_typeof_against(right_node, left) if left is not _UNDECIDED else None)
    if typeof is not None:
        return operator.startswith("!") if typeof is False else _UNDECIDED
    if left is _UNDECIDED or right is _UNDECIDED or None in (left, right) or type(left) is not type(right):
        return _UNDECIDED
    return (left == right) != operator.startswith("!")


def _typeof_against(node: Node | None, literal: object) -> bool | None:
    """True when `node` is ``typeof x`` and `literal` a string ``typeof`` can return, False when it never
    can; None when `node` is no ``typeof``."""
    if node is None or node.type != "unary_expression" or not _t(node).startswith("typeof"):
        return None
    return isinstance(literal, str) and literal in _TYPEOF
