"""Python facts via tree-sitter: declarations (owner-qualified, full bodies), calls and integration edges.

Edges recorded (appendix §13): calls inside bodies; module/class-level assignments that bind a name to
another name; imports; ``__all__`` exports; registry entries (dict literals and subscript assignments whose
values are names, ``.register(x)``/``.append(x)``/``.add(x)`` calls at module level, decorators on a
declaration). Syntax errors are tolerated (tree-sitter recovers) but mark the file's scope incomplete.
"""

from __future__ import annotations

import functools

import tree_sitter_python
from tree_sitter import Language, Node, Parser

from reqbench.protocols.pace.l1.languages.facts import Binding, Decl, EdgeKind, FileFacts

_REGISTER_METHODS = {
    "register",
    "append",
    "add",
    "add_handler",
    "connect",
    "subscribe",
    "include",
    "add_route",
    "add_url_rule",
    "setdefault",
    "update",
}


_PLAIN_DECORATORS = {
    "property",
    "staticmethod",
    "classmethod",
    "abstractmethod",
    "abc.abstractmethod",
    "functools.wraps",
    "wraps",
    "dataclass",
    "dataclasses.dataclass",
    "functools.cache",
    "functools.lru_cache",
    "override",
    "typing.override",
}


@functools.lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_python.language()))


def _t(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def parse(path: str, text: str) -> FileFacts:
    tree = _parser().parse(text.encode("utf-8"))
    root = tree.root_node
    facts = FileFacts(path=path, language="python", parse_ok=not root.has_error)
    _walk_block(root, facts, owner=None, source="<module>")
    return facts


def _walk_block(block: Node, facts: FileFacts, owner: str | None, source: str) -> None:
    for child in block.named_children:
        _statement(child, facts, owner, source)


def _statement(node: Node, facts: FileFacts, owner: str | None, source: str) -> None:
    kind = node.type
    if kind == "decorated_definition":
        definition = node.child_by_field_name("definition")
        decorators = [_t(c)[1:].strip() for c in node.named_children if c.type == "decorator"]
        if definition is not None:
            decl = _definition(definition, facts, owner, decorators, outer=node)
            for dec in (d for d in decorators if d.split("(")[0] not in _PLAIN_DECORATORS):
                facts.bindings.append(
                    Binding(
                        facts.path,
                        node.start_point[0] + 1,
                        EdgeKind.REGISTRY,
                        dec.split("(")[0],
                        decl.qname,
                        "@" + dec,
                    )
                )
    elif kind in ("function_definition", "class_definition"):
        _definition(node, facts, owner, [], outer=node)
    elif kind in ("import_statement", "import_from_statement"):
        _import(node, facts, source)
    elif kind == "expression_statement":
        for expr in node.named_children:
            if expr.type == "assignment":
                _assignment(expr, facts, owner, source)
            elif expr.type == "call" and owner is None:
                _module_call(expr, facts, source)
    elif kind in (
        "if_statement",
        "try_statement",
        "with_statement",
        "else_clause",
        "except_clause",
        "finally_clause",
        "elif_clause",
        "block",
    ):
        for child in node.named_children:
            if child.type == "block":
                _walk_block(child, facts, owner, source)
            elif child.type in ("else_clause", "except_clause", "finally_clause", "elif_clause"):
                _statement(child, facts, owner, source)


def _definition(node: Node, facts: FileFacts, owner: str | None, decorators: list[str], outer: Node) -> Decl:
    name = _t(node.child_by_field_name("name"))
    qname = f"{owner}.{name}" if owner else name
    body = node.child_by_field_name("body")
    is_class = node.type == "class_definition"
    header_end = body.start_byte if body is not None else node.end_byte
    full = outer.text or b""
    header = full[: header_end - outer.start_byte].decode("utf-8", "replace").rstrip()
    body_text = _body_without_docstring(body)
    decl = Decl(
        file=facts.path,
        qname=qname,
        kind="class" if is_class else ("method" if owner else "function"),
        owner=owner,
        start_line=outer.start_point[0] + 1,
        end_line=outer.end_point[0] + 1,
        header=header,
        body=body_text,
        text=_t(outer),
        decorators=decorators,
    )
    if not is_class:
        _signature(node, decl)
    facts.decls.append(decl)
    if body is None:
        return decl
    if is_class:
        bases = node.child_by_field_name("superclasses")
        if bases is not None:
            decl.refs.extend(_t(b) for b in bases.named_children if b.type in ("identifier", "attribute"))
        _walk_block(body, facts, owner=qname, source=qname)
    else:
        _collect_calls(body, decl, facts)
        if name == "__getattr__" and owner is None:
            facts.dynamic.append("module __getattr__")
    return decl


def _body_without_docstring(body: Node | None) -> str:
    if body is None:
        return ""
    kids = body.named_children
    start = 0
    if (
        kids
        and kids[0].type == "expression_statement"
        and kids[0].named_children
        and kids[0].named_children[0].type == "string"
    ):
        start = 1
    if start >= len(kids):
        return ""
    raw = body.text or b""
    return raw[kids[start].start_byte - body.start_byte :].decode("utf-8", "replace")


def _signature(node: Node, decl: Decl) -> None:
    params = node.child_by_field_name("parameters")
    if params is None:
        return
    for p in params.named_children:
        if p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            decl.variadic = True
            continue
        ident = (
            p
            if p.type == "identifier"
            else next((c for c in p.named_children if c.type == "identifier"), None)
        )
        if ident is not None:
            decl.params.append(_t(ident))


def _collect_calls(body: Node, decl: Decl, facts: FileFacts) -> None:
    stack = [body]
    refs: set[str] = set()
    while stack:
        n = stack.pop()
        if n.type == "call":
            fn = n.child_by_field_name("function")
            callee = _t(fn)
            if fn is not None and fn.type in ("identifier", "attribute"):
                decl.calls.append(callee)
                facts.bindings.append(
                    Binding(
                        facts.path,
                        n.start_point[0] + 1,
                        EdgeKind.CALL,
                        decl.qname,
                        callee,
                        _t(n).splitlines()[0][:160],
                    )
                )
        elif n.type in ("import_statement", "import_from_statement"):
            _import(n, facts, decl.qname)  # a function-local import is wiring too (lazy imports)
        elif n.type == "assignment":
            right = n.child_by_field_name("right")
            if right is not None and right.type == "dictionary":
                _dict_registry(right, f"{decl.qname}:{_t(n.child_by_field_name('left'))}", facts)
        elif n.type == "identifier":
            refs.add(_t(n))
            if _t(n) == "globals":
                facts.dynamic.append("globals()")
        stack.extend(reversed(n.children))
    decl.refs.extend(sorted(refs - _local_names(body) - set(decl.params)))


_BINDING_PARENTS = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "as_pattern_target": None,
    "with_item": None,
}


def _local_names(body: Node) -> set[str]:
    """Names bound inside a body (assignment / loop / comprehension targets): locals, not references."""
    out: set[str] = set()
    stack = [body]
    while stack:
        n = stack.pop()
        field = _BINDING_PARENTS.get(n.type)
        target = n.child_by_field_name(field) if field else None
        if target is not None:
            tstack = [target]
            while tstack:
                t = tstack.pop()
                if t.type == "identifier":
                    out.add(_t(t))
                elif t.type in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list"):
                    tstack.extend(t.named_children)
        stack.extend(n.children)
    return out


def _import(node: Node, facts: FileFacts, source: str) -> None:
    line = node.start_point[0] + 1
    text = _t(node)
    module = node.child_by_field_name("module_name")
    mod = _t(module)
    for child in node.named_children:
        if module is not None and child.start_byte == module.start_byte:
            continue
        if child.type == "wildcard_import":
            facts.dynamic.append("star import")
            facts.bindings.append(Binding(facts.path, line, EdgeKind.IMPORT, source, mod + ".*", text))
        elif child.type in ("dotted_name", "aliased_import"):
            name_node = child.child_by_field_name("name") if child.type == "aliased_import" else child
            name = _t(name_node)
            target = f"{mod}.{name}" if mod and not mod.endswith(".") else f"{mod}{name}"
            facts.bindings.append(Binding(facts.path, line, EdgeKind.IMPORT, source, target, text))


def _assignment(node: Node, facts: FileFacts, owner: str | None, source: str) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    line = node.start_point[0] + 1
    lhs = _t(left)
    text = _t(node).splitlines()[0][:160]
    if right is None:
        return
    if lhs == "__all__" and owner is None:
        if right.type in ("list", "tuple"):
            names = []
            for item in right.named_children:
                if item.type != "string":
                    facts.all_dynamic = True
                    continue
                names.append(_t(item).strip("'\""))
            facts.all_names = (facts.all_names or []) + names
            for n in names:
                facts.bindings.append(
                    Binding(facts.path, line, EdgeKind.EXPORT, "__all__", n, f"__all__ += {n!r}")
                )
        else:
            facts.all_dynamic = True
        return
    if right.type == "dictionary":
        _dict_registry(right, lhs, facts)
        return
    if right.type in ("list", "tuple", "set"):
        for item in right.named_children:
            if item.type in ("identifier", "attribute"):
                facts.bindings.append(
                    Binding(facts.path, item.start_point[0] + 1, EdgeKind.REGISTRY, lhs, _t(item), text)
                )
        return
    if left is not None and left.type == "subscript" and right.type in ("identifier", "attribute"):
        facts.bindings.append(Binding(facts.path, line, EdgeKind.REGISTRY, lhs, _t(right), text))
        return
    qual = f"{owner}.{lhs}" if owner else lhs
    if right.type in ("identifier", "attribute"):
        facts.bindings.append(Binding(facts.path, line, EdgeKind.ASSIGNMENT, qual, _t(right), text))
    elif right.type == "call":
        fn = right.child_by_field_name("function")
        if fn is not None and fn.type in ("identifier", "attribute"):
            facts.bindings.append(Binding(facts.path, line, EdgeKind.ASSIGNMENT, qual, _t(fn), text))


def _dict_registry(node: Node, lhs: str, facts: FileFacts) -> None:
    """Dict literal entries whose values are names, strings or lists of them: registry edges."""
    for pair in node.named_children:
        value = pair.child_by_field_name("value") if pair.type == "pair" else None
        if value is None:
            continue
        key = _t(pair.child_by_field_name("key")).strip("'\"")
        items = value.named_children if value.type in ("list", "tuple") else [value]
        for item in items:
            if item.type in ("identifier", "attribute", "string"):
                facts.bindings.append(
                    Binding(
                        facts.path,
                        pair.start_point[0] + 1,
                        EdgeKind.REGISTRY,
                        f"{lhs}[{key}]",
                        _t(item).strip("'\""),
                        _t(pair)[:160],
                    )
                )


def _module_call(node: Node, facts: FileFacts, source: str) -> None:
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None or fn.type != "attribute" or args is None:
        return
    method = _t(fn.child_by_field_name("attribute"))
    if method not in _REGISTER_METHODS:
        return
    obj = _t(fn.child_by_field_name("object"))
    for arg in args.named_children:
        value = arg.child_by_field_name("value") if arg.type == "keyword_argument" else arg
        if value is not None and value.type in ("identifier", "attribute"):
            facts.bindings.append(
                Binding(
                    facts.path,
                    node.start_point[0] + 1,
                    EdgeKind.REGISTRY,
                    f"{obj}.{method}",
                    _t(value),
                    _t(node).splitlines()[0][:160],
                )
            )
