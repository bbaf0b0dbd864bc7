"""The compiled code of generated dataclass methods, kept from one process to the next.

The standard library's `dataclasses` writes the methods of every class it decorates (``__init__``,
``__repr__``, ``__eq__``, a frozen class's ``__setattr__`` ...) as source text and compiles that text with
`exec` each time a process imports the class. Before ``reqbench run`` starts its first row that compiling
is a fifth of all the instructions the process executes (docs/performance.md, "Start-up"), and the text is
the same in every process.

`install` routes the module's calls to `exec` through `_cached_exec`: the text is looked up in a table
of code objects compiled from exactly that text (same flags and file name as `exec` uses, so the
functions are the same), and only texts not in it are compiled. At exit, a process that compiled texts
not yet in the table writes the table (`marshal`, atomically) beside reqbench's own byte code, in the
reqbench cache (`core.cache_location`: ``$REQBENCH_CACHE/dataclass-code/``), one file per interpreter
(its cache tag), headed by the interpreter's byte-code magic number. The cache already holds code the
harness runs (task environments), and no agent or check can see or write it: agents and checks run in
sandboxes that show neither the cache nor the installed harness
(tests/security/test_dataclass_code_cache_is_out_of_the_agents_reach.py). A table that does not read
back whole (another interpreter's, truncated, not a table of code) is ignored; a cache that cannot be
written is left alone.

`reqbench.core` installs it on import, so the command line (which imports `reqbench.core` before any
command) and programs that use the library both get it; ``REQBENCH_DATACLASS_CODE_CACHE=0`` leaves
`dataclasses` as it is.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

from reqbench.core.cache_location import cache_root

MAX_ENTRIES = 4096
"""Texts kept at most (reqbench's run path compiles ~800; the rest is room for the program's own classes)."""

_table: dict[str, CodeType] = {}
_added: dict[str, CodeType] = {}
_installed = False


def table_path() -> Path:
    """Where the table lives: the reqbench cache, one file per interpreter (its cache tag)."""
    return cache_root() / "dataclass-code" / f"{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[str, CodeType]:
    try:
        data = path.read_bytes()
        if not data.startswith(MAGIC_NUMBER):
            return {}
        table = marshal.loads(data[len(MAGIC_NUMBER):])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, CodeType)
                                              for k, v in table.items()):
        return {}
    return table


def _cached_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as `dataclasses` calls it, a text compiled once per text and interpreter."""
    if isinstance(source, str):
        code = _table.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if len(_table) < MAX_ENTRIES:
                _table[source] = _added[source] = code
        source = code
    builtins.exec(source, globals, locals)


def _write() -> None:
    if not _added:
        return
    path = table_path()
    try:
        merged = {**_read(path), **_table}  # another process may have written texts of its own meanwhile
        if len(merged) > MAX_ENTRIES:
            merged = _table
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_bytes(MAGIC_NUMBER + marshal.dumps(merged))
        os.replace(partial, path)
    except OSError:  # a cache that cannot be written: the next process compiles again, nothing fails
        return


def install() -> None:
    """Serve `dataclasses`' generated methods from the table (idempotent; see the module docstring)."""
    global _installed
    if _installed or os.environ.get("REQBENCH_DATACLASS_CODE_CACHE") == "0":
        return
    import dataclasses

    _installed = True
    _table.update(_read(table_path()))
    dataclasses.exec = _cached_exec  # type: ignore[attr-defined]  # the module's global, ahead of builtins
    atexit.register(_write)
