"""Pluggable language layer: each language turns one source file into `FileFacts`.

`facts_for(path, text)` dispatches on the file suffix. Python is built on tree-sitter; configuration files
(YAML/TOML/INI/JSON/CFG) contribute configuration bindings only. Adding a language means adding a module
with a `parse(path, text) -> FileFacts` function and one entry in `_BY_SUFFIX`.
"""

from __future__ import annotations

from collections.abc import Callable

from reqbench.protocols.pace.l1.languages import config, python
from reqbench.protocols.pace.l1.languages.facts import Binding, Decl, EdgeKind, FileFacts

__all__ = ["Binding", "Decl", "EdgeKind", "FileFacts", "facts_for", "is_indexed"]

_BY_SUFFIX: dict[str, Callable[[str, str], FileFacts]] = {
    ".py": python.parse,
    ".yaml": config.parse,
    ".yml": config.parse,
    ".toml": config.parse,
    ".ini": config.parse,
    ".cfg": config.parse,
    ".json": config.parse,
}


def is_indexed(path: str) -> bool:
    return any(path.endswith(s) for s in _BY_SUFFIX)


def facts_for(path: str, text: str) -> FileFacts:
    for suffix, fn in _BY_SUFFIX.items():
        if path.endswith(suffix):
            return fn(path, text)
    return FileFacts(path=path, language="other")
