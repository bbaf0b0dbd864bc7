"""Pluggable language layer: each language turns one source file into `FileFacts`.

`facts_for(path, text)` dispatches on the file suffix. Python and JavaScript/TypeScript are built on
tree-sitter; configuration files (YAML/TOML/INI/JSON/CFG) contribute configuration bindings only.
`module_candidates(path)` lists the files a suffix-less module path (a contract target) may denote.
Adding a language means adding a module with a `parse(path, text) -> FileFacts` function and its
suffixes in `_BY_SUFFIX`.
"""

from __future__ import annotations

from collections.abc import Callable

from reqbench.protocols.pace.l1.languages import config, javascript, python
from reqbench.protocols.pace.l1.languages.facts import Binding, Decl, EdgeKind, FileFacts

__all__ = ["Binding", "Decl", "EdgeKind", "FileFacts", "facts_for", "is_indexed", "is_source", "module_candidates"]

_BY_SUFFIX: dict[str, Callable[[str, str], FileFacts]] = {
    ".py": python.parse,
    ".pyi": python.parse,  # type stubs: their declarations and `__all__` are registration points too
    **{suffix: javascript.parse for suffix in javascript.SUFFIXES},
    ".yaml": config.parse,
    ".yml": config.parse,
    ".toml": config.parse,
    ".ini": config.parse,
    ".cfg": config.parse,
    ".json": config.parse,
}


def is_indexed(path: str) -> bool:
    return any(path.endswith(s) for s in _BY_SUFFIX)


def is_source(path: str) -> bool:
    """A file of a programming language (not configuration)."""
    return path.endswith((".py", *javascript.SUFFIXES))


def module_candidates(path: str) -> list[str]:
    """The files a module path may denote: itself when it has a source suffix, else the Python module and
    package, then the JavaScript/TypeScript files and index files."""
    if is_source(path):
        return [path]
    return [f"{path}.py", f"{path}/__init__.py", *javascript.module_candidates(path)]


def facts_for(path: str, text: str) -> FileFacts:
    for suffix, fn in _BY_SUFFIX.items():
        if path.endswith(suffix):
            return fn(path, text)
    return FileFacts(path=path, language="other")
