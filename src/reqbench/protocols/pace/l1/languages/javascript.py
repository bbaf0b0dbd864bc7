"""JavaScript / TypeScript facts via tree-sitter: the second language of the PACE language layer.

Same `FileFacts` as `python.py`, so L0 and L1 work unchanged (paper §3.1; appendix §13 edge kinds):
**declarations** — functions, classes, methods (``Owner.name``), class fields and ``const`` bindings whose
value is a function; **calls** — call and ``new`` expressions, ``this.x(...)`` written ``self.x`` so the
call graph's same-owner rules apply as for Python; **edges** — ES imports and ``require``; exports
(``export`` declarations and lists, ``export default``, ``module.exports = {...}``, ``exports.x = ...``);
registry entries (object/array literals of names, ``table[key] = handler``, module-level registration
calls such as ``router.get('/p', handler)``, ``bus.on('evt', fn)``, ``app.use(mw)``); name assignments.

Scope completeness for L0: a syntax error, ``eval``, ``export * from`` or a computed
``module.exports[...]`` leave the scope incomplete. ``all_names`` is the file's complete export list
(empty when it exports nothing); rest or destructured parameters make a signature variadic and decorators
(TypeScript) may rewrite it — L0 defers on these as it does for Python.
"""

from __future__ import annotations

import functools

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from reqbench.protocols.pace.l1.languages.facts import Binding, Decl, EdgeKind, FileFacts

SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
MODULE_SUFFIXES = (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")
"""Tried in this order when a contract target names a module without its suffix (``src/cart``)."""

_REGISTER_METHODS = {"register", "use", "on", "once", "addListener", "addEventListener", "subscribe", "get",
                     "post", "put", "patch", "delete", "route", "set", "add", "push", "define", "command"}
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")
_CLASSES = ("class_declaration", "abstract_class_declaration", "class")
_FUNCTIONS = ("function_declaration", "generator_function_declaration")


@functools.lru_cache(maxsize=3)
def _parser(dialect: str) -> Parser:
    if dialect == "tsx":
        return Parser(Language(tree_sitter_typescript.language_tsx()))
    if dialect == "typescript":
        return Parser(Language(tree_sitter_typescript.language_typescript()))
    return Parser(Language(tree_sitter_javascript.language()))


def _dialect(path: str) -> str:
    return "tsx" if path.endswith(".tsx") else "typescript" if path.endswith((".ts", ".mts", ".cts")) \
        else "javascript"


def module_candidates(path: str) -> list[str]:
    """Files a suffix-less module path may denote: ``p.ts`` ... ``p/index.js``."""
    return [f"{path}{s}" for s in MODULE_SUFFIXES] + [f"{path}/index{s}" for s in MODULE_SUFFIXES]


def _t(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _first_line(node: Node) -> str:
    return _t(node).splitlines()[0][:160] if _t(node) else ""


def _unquote(text: str) -> str:
    return text.strip("'\"`")


def parse(path: str, text: str) -> FileFacts:
    dialect = _dialect(path)
    root = _parser(dialect).parse(text.encode("utf-8")).root_node
    facts = FileFacts(path=path, language="typescript" if dialect != "javascript" else "javascript",
                      parse_ok=not root.has_error, all_names=[])
    for child in root.named_children:
        _statement(child, facts)
    return facts


def _export(facts: FileFacts, node: Node, name: str) -> None:
    assert facts.all_names is not None
    facts.all_names.append(name)
    facts.bindings.append(Binding(facts.path, _line(node), EdgeKind.EXPORT, "export", name, _first_line(node)))


def _statement(node: Node, facts: FileFacts, exported: bool = False, outer: Node | None = None) -> None:
    """One top-level statement; `outer` is the enclosing ``export`` statement, which a declaration's text,
    header and lines include."""
    kind = node.type
    if kind == "export_statement":
        _export_statement(node, facts)
    elif kind in _FUNCTIONS or kind in _CLASSES:
        decl = _declaration(node, facts, owner=None, outer=outer or node)
        if exported:
            _export(facts, outer or node, decl.name)
    elif kind in ("lexical_declaration", "variable_declaration"):
        for decl_node in (c for c in node.named_children if c.type == "variable_declarator"):
            _declarator(decl_node, outer or node, facts, exported)
    elif kind == "import_statement":
        _import(node, facts)
    elif kind == "expression_statement":
        for expr in node.named_children:
            if expr.type == "assignment_expression":
                _assignment(expr, facts)
            elif expr.type == "call_expression":
                _module_call(expr, facts)
                _collect_eval(expr, facts)
    elif kind in ("if_statement", "try_statement", "statement_block", "else_clause", "catch_clause",
                  "finally_clause"):
        for child in node.named_children:
            _statement(child, facts)


def _export_statement(node: Node, facts: FileFacts) -> None:
    declaration = node.child_by_field_name("declaration")
    is_default = any(c.type == "default" for c in node.children)
    if declaration is not None:
        _statement(declaration, facts, exported=not is_default, outer=node)
        if is_default:
            _export(facts, node, "default")
            local = _t(declaration.child_by_field_name("name"))
            if local:
                _export(facts, node, local)
        return
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    if clause is not None:
        for spec in (c for c in clause.named_children if c.type == "export_specifier"):
            name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
            _export(facts, spec, _t(alias or name))
            if alias is not None:
                facts.bindings.append(Binding(facts.path, _line(spec), EdgeKind.ASSIGNMENT, _t(alias), _t(name),
                                              _first_line(spec)))
        return
    if any(c.type == "*" for c in node.children):
        facts.dynamic.append("export * from")
        facts.all_dynamic = True
        return
    value = node.child_by_field_name("value")
    if is_default and value is not None:
        _export(facts, node, "default")
        if value.type in ("identifier", "member_expression"):
            facts.bindings.append(Binding(facts.path, _line(node), EdgeKind.EXPORT, "default", _t(value),
                                          _first_line(node)))


def _declarator(node: Node, outer: Node, facts: FileFacts, exported: bool) -> None:
    name_node, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    name = _t(name_node)
    if name_node is not None and name_node.type == "identifier" and value is not None and \
            value.type in _FUNCTION_VALUES:
        _function_like(value, facts, name, owner=None, outer=outer)
    elif value is not None:
        _value_edges(name, value, facts, name_node)
    if exported and name_node is not None:
        if name_node.type == "identifier":
            _export(facts, outer, name)
        else:  # export const { a, b } = ...
            for ident in _pattern_names(name_node):
                _export(facts, outer, ident)


def _pattern_names(node: Node) -> list[str]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(_t(n))
        elif n.type == "pair_pattern":
            stack.extend(v for v in [n.child_by_field_name("value")] if v is not None)
            continue
        stack.extend(reversed(n.named_children))
    return out


def _require_source(value: Node) -> str | None:
    if value.type == "call_expression" and _t(value.child_by_field_name("function")) == "require":
        args = value.child_by_field_name("arguments")
        if args is not None and args.named_children and args.named_children[0].type == "string":
            return _unquote(_t(args.named_children[0]))
    return None


def _value_edges(lhs: str, value: Node, facts: FileFacts, name_node: Node | None) -> None:
    """Edges of a module-level binding ``lhs = value``."""
    line, text = _line(value), _first_line(value.parent or value)
    module = _require_source(value)
    if module is not None:
        names = _pattern_names(name_node) if name_node is not None and name_node.type != "identifier" \
            else [lhs]
        for n in names:
            facts.bindings.append(Binding(facts.path, line, EdgeKind.IMPORT, "<module>", f"{module}.{n}", text))
    elif value.type == "object":
        _object_registry(value, lhs, facts)
    elif value.type == "array":
        for item in value.named_children:
            if item.type in ("identifier", "member_expression"):
                facts.bindings.append(Binding(facts.path, _line(item), EdgeKind.REGISTRY, lhs, _t(item), text))
    elif value.type in ("identifier", "member_expression"):
        facts.bindings.append(Binding(facts.path, line, EdgeKind.ASSIGNMENT, lhs, _t(value), text))
    elif value.type in ("call_expression", "new_expression"):
        fn = value.child_by_field_name("function") or value.child_by_field_name("constructor")
        if fn is not None and fn.type in ("identifier", "member_expression"):
            facts.bindings.append(Binding(facts.path, line, EdgeKind.ASSIGNMENT, lhs, _t(fn), text))


def _object_registry(node: Node, lhs: str, facts: FileFacts) -> None:
    """Object literal entries whose values are names, strings or arrays of them: registry edges."""
    for pair in node.named_children:
        if pair.type == "shorthand_property_identifier":
            key, items = _t(pair), [pair]
        elif pair.type == "pair":
            key = _unquote(_t(pair.child_by_field_name("key")))
            value = pair.child_by_field_name("value")
            if value is None:
                continue
            items = value.named_children if value.type == "array" else [value]
        else:
            continue
        for item in items:
            if item.type in ("identifier", "member_expression", "string", "shorthand_property_identifier"):
                facts.bindings.append(Binding(facts.path, _line(pair), EdgeKind.REGISTRY, f"{lhs}[{key}]",
                                              _unquote(_t(item)), _t(pair)[:160]))


def _assignment(node: Node, facts: FileFacts) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return
    lhs = _t(left)
    if lhs == "module.exports":
        if right.type == "object":
            for pair in right.named_children:
                if pair.type == "shorthand_property_identifier":
                    _export(facts, pair, _t(pair))
                elif pair.type == "pair":
                    _export(facts, pair, _unquote(_t(pair.child_by_field_name("key"))))
            _object_registry(right, "module.exports", facts)
        else:
            _export(facts, node, "default")
            _value_edges("module.exports", right, facts, None)
        return
    if left.type == "subscript_expression" and _t(left.child_by_field_name("object")) in ("module.exports",
                                                                                          "exports"):
        facts.dynamic.append("computed module.exports[...]")
        facts.all_dynamic = True
        return
    if left.type == "member_expression" and _t(left.child_by_field_name("object")) in ("exports",
                                                                                       "module.exports"):
        name = _t(left.child_by_field_name("property"))
        _export(facts, node, name)
        if right.type in _FUNCTION_VALUES:
            _function_like(right, facts, name, owner=None, outer=node)
        else:
            _value_edges(name, right, facts, None)
        return
    if left.type == "subscript_expression" and right.type in ("identifier", "member_expression"):
        facts.bindings.append(Binding(facts.path, _line(node), EdgeKind.REGISTRY, lhs, _t(right), _first_line(node)))
        return
    _value_edges(lhs, right, facts, None)


def _module_call(node: Node, facts: FileFacts) -> None:
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or fn.type != "member_expression" or args is None:
        return
    method = _t(fn.child_by_field_name("property"))
    if method not in _REGISTER_METHODS:
        return
    obj = _t(fn.child_by_field_name("object"))
    for arg in args.named_children:
        if arg.type in ("identifier", "member_expression"):
            facts.bindings.append(Binding(facts.path, _line(node), EdgeKind.REGISTRY, f"{obj}.{method}", _t(arg),
                                          _first_line(node)))


def _collect_eval(node: Node, facts: FileFacts) -> None:
    if _t(node.child_by_field_name("function")) in ("eval", "Function"):
        facts.dynamic.append("eval")


def _import(node: Node, facts: FileFacts) -> None:
    source = _unquote(_t(node.child_by_field_name("source")))
    line, text = _line(node), _first_line(node)
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    names: list[str] = []
    for part in clause.named_children if clause is not None else []:
        if part.type == "identifier":
            names.append(_t(part))
        elif part.type == "namespace_import":
            names.append("*")
        elif part.type == "named_imports":
            for spec in (s for s in part.named_children if s.type == "import_specifier"):
                names.append(_t(spec.child_by_field_name("name")))
    for name in names or ["*"]:
        facts.bindings.append(Binding(facts.path, line, EdgeKind.IMPORT, "<module>", f"{source}.{name}", text))


def _declaration(node: Node, facts: FileFacts, owner: str | None, outer: Node) -> Decl:
    name = _t(node.child_by_field_name("name"))
    if node.type in _CLASSES:
        return _class(node, facts, name, owner, outer)
    return _function_like(node, facts, name, owner, outer)


def _header(outer: Node, body: Node | None) -> str:
    end = body.start_byte if body is not None else outer.end_byte
    return (outer.text or b"")[: end - outer.start_byte].decode("utf-8", "replace").rstrip()


def _decorators(node: Node) -> list[str]:
    return [_t(c)[1:].strip() for c in node.children if c.type == "decorator"]


def _class(node: Node, facts: FileFacts, name: str, owner: str | None, outer: Node) -> Decl:
    qname = f"{owner}.{name}" if owner else name
    body = node.child_by_field_name("body")
    decl = Decl(file=facts.path, qname=qname, kind="class", owner=owner, start_line=_line(outer),
                end_line=outer.end_point[0] + 1, header=_header(outer, body), body=_t(body), text=_t(outer),
                decorators=_decorators(node))
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    if heritage is not None:
        stack = list(heritage.named_children)
        while stack:
            n = stack.pop()
            if n.type in ("identifier", "type_identifier", "member_expression"):
                decl.refs.append(_t(n))
            elif n.type in ("extends_clause", "implements_clause"):
                stack.extend(n.named_children)
    facts.decls.append(decl)
    for member in body.named_children if body is not None else []:
        if member.type == "method_definition":
            _function_like(member, facts, _t(member.child_by_field_name("name")), qname, member)
        elif member.type in ("field_definition", "public_field_definition"):
            value = member.child_by_field_name("value")
            prop = member.child_by_field_name("property") or member.child_by_field_name("name")
            if value is not None and value.type in _FUNCTION_VALUES:
                _function_like(value, facts, _t(prop), qname, member)
    return decl


def _function_like(node: Node, facts: FileFacts, name: str, owner: str | None, outer: Node) -> Decl:
    body = node.child_by_field_name("body")
    decl = Decl(file=facts.path, qname=f"{owner}.{name}" if owner else name,
                kind="method" if owner else "function", owner=owner, start_line=_line(outer),
                end_line=outer.end_point[0] + 1, header=_header(outer, body), body=_t(body), text=_t(outer),
                decorators=_decorators(outer))
    _signature(node, decl)
    facts.decls.append(decl)
    if body is not None:
        _collect_calls(body, decl, facts)
    return decl


def _signature(node: Node, decl: Decl) -> None:
    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    if params is None:
        return
    items = params.named_children if params.type == "formal_parameters" else [params]
    for p in items:
        target = p.child_by_field_name("pattern") if p.type in ("required_parameter", "optional_parameter") \
            else p
        if target is None:
            continue
        if target.type == "assignment_pattern":
            target = target.child_by_field_name("left") or target
        if target.type == "identifier":
            decl.params.append(_t(target))
        elif target.type in ("rest_pattern", "object_pattern", "array_pattern"):
            decl.variadic = True


def _callee(fn: Node) -> str:
    text = _t(fn)
    return "self." + text[5:] if text.startswith("this.") else text


def _collect_calls(body: Node, decl: Decl, facts: FileFacts) -> None:
    refs: set[str] = set()
    locals_: set[str] = set(decl.params)
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type in ("call_expression", "new_expression"):
            fn = n.child_by_field_name("function") or n.child_by_field_name("constructor")
            if fn is not None and fn.type in ("identifier", "member_expression"):
                callee = _callee(fn)
                decl.calls.append(callee)
                facts.bindings.append(Binding(facts.path, _line(n), EdgeKind.CALL, decl.qname, callee,
                                              _first_line(n)))
                if callee in ("eval", "Function"):
                    facts.dynamic.append("eval")
        elif n.type == "variable_declarator":
            locals_.update(_pattern_names(n.child_by_field_name("name") or n))
        elif n.type == "identifier":
            refs.add(_t(n))
        stack.extend(reversed(n.children))
    decl.refs.extend(sorted(refs - locals_))
