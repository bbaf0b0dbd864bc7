"""Declarations reachable from a repository's entry points or tests: what the token-overlap heuristic may
credit (PACE-Bench §3.1, L1 "retrieves ... the connections needed to make the behavior reachable").

`reachable(index)` walks the candidate's whole L1 index. **Roots**: every declaration of a test file (the
test runner calls them), and every target of a binding made at the top level of a module or a class body
(code that runs on import) outside lines that never run: assignments, registry entries, ``__all__`` and
``export`` lists (a library's public API is its entry points), public names a package's ``__init__`` or
``index`` imports (re-exports; any other import reaches nothing until the name is used), decorators that
register, configuration bindings (``[scripts]``, ``package.json``), and every name the top level reads
(`reach_top`: ``main()`` under ``if __name__ == "__main__":``, module constants built by calls). Every
module is taken to be imported. **Steps**: a reached function reaches what the lines of its body that can
run call or name, and the targets of its own bindings there (a call under ``if 0:`` reaches nothing); a
reached class reaches its methods (a method is reached only through its class). Names resolve
conservatively, so a never-called helper cannot borrow a live name: a bare name to the declaration of that
name in the same file, else to what the file imports under that name (to any free function or class of
that name only in a file with star imports or other dynamic names); ``module.name`` only to a free function
or class in a file called ``module``; ``obj.name`` on anything else to methods only (through their class).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from reqbench.protocols.pace.l1.callgraph import RepoIndex, last_segment
from reqbench.protocols.pace.l1.languages import Decl, EdgeKind
from reqbench.protocols.pace.l1.package import is_test_path
from reqbench.protocols.pace.l1.reach_top import TopLevel, top_level

_BARE = re.compile(r"(?<![.\w$])[A-Za-z_$][\w$]*")


def reachable(index: RepoIndex) -> set[str]:
    """Keys (``file::qname``) of the declarations of `index` reachable from entry points or tests."""
    functions = {(d.file, d.qname) for d in index.decls() if d.kind != "class"}
    modules = {f: top_level(index.root, f) for f in index.files}
    reached: set[str] = set()
    todo: list[Decl] = [d for d in index.decls() if is_test_path(d.file)]
    for binding in index.bindings():
        if binding.kind is EdgeKind.CALL or _function_source(binding.file, binding.source, functions) \
                or binding.kind is EdgeKind.IMPORT and not _reexport(binding.file, binding.target) \
                or binding.line in modules[binding.file].dead:
            continue
        todo += _resolve(index, binding.target, binding.file)
    for file, module in modules.items():
        todo += [d for name in module.names for d in _resolve(index, name, file)]
    while todo:
        decl = todo.pop()
        if decl.key in reached:
            continue
        reached.add(decl.key)
        todo += _steps(index, decl, functions, modules[decl.file])
    return reached


def _reexport(file: str, target: str) -> bool:
    """An import that is public API: a public name imported by a package's entry module (``__init__``,
    ``index``). Any other import reaches nothing by itself -- only a use of the imported name does."""
    return file.rsplit("/", 1)[-1].split(".")[0] in ("__init__", "index") and not last_segment(target).startswith("_")


def _function_source(file: str, source: str, functions: set[tuple[str, str]]) -> bool:
    """Whether a binding was made inside a function (``qname`` or ``qname:lhs`` for a local registry)."""
    return (file, source) in functions or (file, source.split(":", 1)[0]) in functions


def _steps(index: RepoIndex, decl: Decl, functions: set[tuple[str, str]], module: TopLevel) -> list[Decl]:
    """What a reached declaration reaches from its lines that can run (`TopLevel.dead` excluded)."""
    if decl.kind == "class":
        return index.owned_by(decl.file, decl.qname)
    live_text = "\n".join(line for number, line in enumerate(decl.text.splitlines(), start=decl.start_line)
                          if number not in module.dead)
    bare = set(_BARE.findall(live_text))
    own = [b for b in index.files[decl.file].bindings if b.line not in module.dead
           and b.source.split(":", 1)[0] == decl.qname and (b.file, b.source.split(":", 1)[0]) in functions]
    names: Iterable[str] = [*(b.target for b in own), *(r for r in decl.refs if r in bare)]
    return [d for name in names for d in _resolve(index, name, decl.file)]


def _resolve(index: RepoIndex, written: str, file: str) -> list[Decl]:
    """The free functions and classes a written name may denote (module docstring); never a method."""
    name = last_segment(written)
    free = [d for d in index.named(name) if d.owner is None]
    head = written.replace(":", ".").rstrip(".").rpartition(".")[0]
    if head:
        module = re.split(r"[./]", re.sub(r"\.(?:[cm]?[jt]sx?|py)$", "", head))[-1]
        return [d for d in free if module in _module_names(d.file)]
    same = [d for d in free if d.file == file]
    if same:
        return same
    facts = index.files.get(file)
    imported = [b.target for b in (facts.bindings if facts else []) if b.kind is EdgeKind.IMPORT
                and last_segment(b.target) == name and b.target.rpartition(".")[0]]
    if imported:
        return [d for target in imported for d in _resolve(index, target, file)]
    return free if facts is not None and facts.dynamic else []


def _module_names(path: str) -> set[str]:
    """The names a file is imported under: its stem, and its folder's name for ``__init__``/``index``."""
    parts = path.split("/")
    stem = parts[-1].split(".")[0]
    return {stem, parts[-2]} if stem in ("__init__", "index") and len(parts) > 1 else {stem}
