"""Code the standard library compiles from generated text at every import, kept from one process to the next.

Two parts of the standard library write Python source at run time and compile it, each time a process
imports the classes concerned: `dataclasses` writes the methods of every class it decorates (``__init__``,
``__repr__``, ``__eq__``, a frozen class's ``__setattr__`` ...) and `exec`-s them; `typing.ForwardRef`
compiles every annotation held as a string (with ``from __future__ import annotations``, all of them),
which pydantic and typer resolve for each model field and command parameter. Before ``reqbench run`` starts
its first row that compiling is a quarter of the instructions the process executes (docs/performance.md,
"Start-up"), and the texts are the same in every process.

`install` routes those two modules' calls (their module-global names `exec` and `compile`, looked up ahead
of the builtins) through `_cached_exec` / `_cached_compile`: a text is looked up in a table of code objects
compiled from exactly that text with the flags and file name the caller uses (no inherited future flags,
``<string>``), so the functions and annotations are the same; only texts not in the table are compiled.
At exit, a process that compiled texts not yet in the table writes the table (`marshal`, atomically) to the
reqbench cache (`core.cache_location`: ``$REQBENCH_CACHE/compiled-code/``), one file per interpreter (its
cache tag), headed by the interpreter's byte-code magic number. The cache already holds code the harness
runs (task environments), and no agent or check can see or write it: they run in sandboxes that show
neither the cache nor the installed harness (tests/security/test_code_cache_is_out_of_the_agents_reach.py).
A table that does not read back whole (another interpreter's, truncated, not a table of code) is ignored;
a cache that cannot be written is left alone.

`reqbench.core` installs it on import, so the command line (which imports `reqbench.core` before any
command) and programs that use the library both get it; ``REQBENCH_CODE_CACHE=0`` leaves the standard
library as it is.
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

MAX_ENTRIES = 8192
"""Texts kept at most (a whole `reqbench run` compiles ~900 distinct ones; the rest is room for the program's own)."""

Key = tuple[str, str]
"""(mode, source): ``exec`` for a dataclass's method, ``eval`` for a forward reference."""

_table: dict[Key, CodeType] = {}
_added: dict[Key, CodeType] = {}
_installed = False
_path: Path | None = None


def table_path() -> Path:
    """Where the table lives: the reqbench cache, one file per interpreter (its cache tag)."""
    return cache_root() / "compiled-code" / f"{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[Key, CodeType]:
    try:
        data = path.read_bytes()
        if not data.startswith(MAGIC_NUMBER):
            return {}
        table = marshal.loads(data[len(MAGIC_NUMBER):])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(
            isinstance(key, tuple) and len(key) == 2 and key[0] in ("exec", "eval") and isinstance(key[1], str)
            and isinstance(code, CodeType) for key, code in table.items()):
        return {}
    return table


def _code(mode: str, source: str) -> CodeType:
    """The code of `source` compiled in `mode` as the standard library compiles it, from the table if there."""
    key = (mode, source)
    code = _table.get(key)
    if code is None:
        code = builtins.compile(source, "<string>", mode, dont_inherit=True)
        if len(_table) < MAX_ENTRIES:
            _table[key] = _added[key] = code
    return code


def _cached_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as `dataclasses` calls it: a text is compiled once per interpreter."""
    builtins.exec(_code("exec", source) if isinstance(source, str) else source, globals, locals)


def _cached_compile(source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
                    optimize: int = -1, **kwargs: Any) -> Any:
    """`compile` as `typing.ForwardRef` calls it (``compile(text, '<string>', 'eval')``): such a text is
    compiled once per interpreter; any other call is the builtin's."""
    if (isinstance(source, str) and filename == "<string>" and mode == "eval" and not flags and optimize == -1
            and not kwargs):
        return _code("eval", source)
    return builtins.compile(source, filename, mode, flags, dont_inherit, optimize, **kwargs)


def _write() -> None:
    path = _path
    if not _added or path is None:
        return
    merged = {**_read(path), **_table}  # another process may have written texts of its own meanwhile
    if len(merged) > MAX_ENTRIES:
        merged = _table
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # a cache that cannot be written: the next process compiles again, nothing fails
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        partial.write_bytes(MAGIC_NUMBER + marshal.dumps(merged))
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def install() -> None:
    """Serve `dataclasses`' generated methods and `typing`'s forward references from the table (idempotent;
    see the module docstring)."""
    global _installed, _path
    if _installed or os.environ.get("REQBENCH_CODE_CACHE") == "0":
        return
    import dataclasses
    import typing

    _installed = True
    try:
        _path = table_path()
    except RuntimeError:  # no home folder to hold the cache (`Path.home`): compiled as without the table
        return
    _table.update(_read(_path))
    dataclasses.exec = _cached_exec  # type: ignore[attr-defined]  # module globals, ahead of the builtins
    typing.compile = _cached_compile  # type: ignore[attr-defined]
    atexit.register(_write)
