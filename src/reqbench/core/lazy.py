"""`lazy_attributes`: a package's public names, imported from their modules on first use (PEP 562).

A package that re-exports names from modules a command may never need (the model gateway's HTTP stack,
the store's exports, the summary types a run builds only after its last row) keeps them out of every
command's start-up this way; ``from package import name`` and ``package.name`` work as before. The module
is imported on first use of one of its names, and the name is bound in the package, so later lookups are
plain attribute reads.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for `package`: `where` maps each lazy name to the module defining it
    (a full module name); any other name is an AttributeError, as without the hook."""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
