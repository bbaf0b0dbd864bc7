"""The harness-side guard directory of ``{pytest}`` checks: the guard plugin, its runner and an empty
``pytest.ini``.

A pytest check starts the runner from this directory (``python -P -m reqbench_pytest``: it is the
check's ``PYTHONPATH``), which imports the guard from it, and reads its configuration from the ini in it
(``-c``), so whatever lies in it runs before any submission code. The two modules are there as byte code
only (``reqbench_guard.pyc``, ``reqbench_pytest.pyc``: no source beside them, so the interpreter loads
them as they are instead of compiling the source at every start), compiled by the harness from the
package's sources. Under
bubblewrap it is prepared once per process in a private (0700) temporary directory (`core.tempdirs`) and bound
read-only into each check's view; `guard_dir` re-reads it before every use and re-creates it
elsewhere when anything differs from what the harness would write -- an extra entry (a planted
``pytest.py`` would shadow pytest), a link, a changed byte -- so no check can run with a guard another
process altered. Without bubblewrap nothing can be bound read-only, so `write_guard_files` gives every
check its own copy in its scratch folder.

A check in a task environment runs the guard with the environment's own interpreter, whose byte code
format may not be the harness's: it gets the *source* flavour (``guard_dir(source=True)``: the two modules
as ``.py``, same ini, same verification) and starts the runner as a script
(``python .../guard/reqbench_pytest.py``), which puts the guard directory, not the working directory, first
on ``sys.path`` on every Python 3 (``-P`` exists from 3.11 on only).
"""

from __future__ import annotations

import atexit
import importlib.util
import marshal
import os
import stat
import threading
from functools import lru_cache
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.checks.models import GUARD_DIR, GUARD_MODULE, GUARD_RUNNER
from reqbench.core.workspace.fileio import remove_tree

INI_NAME = "pytest.ini"
INI_TEXT = b"[pytest]\n"
"""Harness-side pytest configuration: nothing of the workspace's configuration is read."""

HASH_BASED = 0b01
"""The flags word of a hash-based ``.pyc`` (PEP 552; the source is not checked: there is none beside it)."""

KIND = "guard"
"""Guard directories are temporary folders of this kind (`core.tempdirs`: their names record the owning
process): a process that ended without its exit handlers (a forked worker, a kill) leaves its own behind,
and the next reqbench process to work in the temporary folder removes it."""

_lock = threading.Lock()
_prepared: dict[int, Path] = {}
"""Process id -> its guard directory (a forked child prepares its own: the parent removes its copy)."""
_prepared_other: dict[tuple[int, str], Path] = {}
"""(process id, flavour) -> the guard directory of another flavour: ``source``, or an environment's byte
code (`envguard`)."""


def guard_files(source: bool = False) -> dict[str, bytes]:
    """File name -> content of the guard directory, as the harness writes it (the modules' sources are
    re-read and compiled again whenever a source file changed). `source`: the modules as source, for a
    task environment's interpreter, whose byte code format may differ from the harness's."""
    sources = tuple(GUARD_DIR / f"{name}.py" for name in (GUARD_MODULE, GUARD_RUNNER))
    signature = []
    for path in sources:
        info = os.stat(path)
        signature += [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    return dict(_files_of(sources, tuple(signature), source))


@lru_cache(maxsize=4)
def _files_of(sources: tuple[Path, ...], signature: tuple[int, ...], source: bool) -> dict[str, bytes]:
    """The guard files made from `sources` as they are while their stat `signature` holds (the cache key:
    the byte code is compiled once per source, so every later comparison sees the same bytes)."""
    if source:
        files = {path.name: path.read_bytes() for path in sources}
    else:
        files = {f"{path.stem}.pyc": byte_code(path.read_bytes(), path.name) for path in sources}
    return {**files, INI_NAME: INI_TEXT}


def byte_code(source: bytes, name: str) -> bytes:
    """The ``.pyc`` of a module's `source` for this interpreter, loadable without its source (PEP 552: a
    hash-based header carrying the source's hash, then the marshalled code)."""
    code = compile(source, name, "exec", dont_inherit=True)
    return (importlib.util.MAGIC_NUMBER + HASH_BASED.to_bytes(4, "little") + importlib.util.source_hash(source)
            + marshal.dumps(code))


def write_guard_files(directory: Path, files: dict[str, bytes] | None = None, *, seal: bool = False) -> None:
    """Create `directory` with the guard files in it; `seal` makes it read-only for its owner too."""
    directory.mkdir(mode=0o700)
    for name, content in (files or guard_files()).items():
        fd = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        if seal:
            os.chmod(directory / name, 0o400)
    if seal:
        directory.chmod(0o500)


def guard_dir(source: bool = False, *, flavour: str | None = None, files: dict[str, bytes] | None = None) -> Path:
    """This process's shared guard directory, verified against `guard_files` now (re-created if it is
    not exactly what the harness wrote). Only for a read-only bind: never hand it to a process that
    can write the host's files. `source`: the flavour with the modules as source (`guard_files`);
    `flavour` and `files`: another flavour the caller made (an environment's byte code, `envguard`)."""
    if files is None:
        files = guard_files(source)
        flavour = "source" if source else None
    with _lock:
        current = _prepared.get(os.getpid()) if flavour is None else _prepared_other.get((os.getpid(), flavour))
        if current is not None and _intact(current, files):
            return current
        if current is not None:
            _remove(current)
        fresh = tempdirs.make(KIND)
        fresh.rmdir()
        write_guard_files(fresh, files, seal=True)
        if flavour is None:
            _prepared[os.getpid()] = fresh
        else:
            _prepared_other[(os.getpid(), flavour)] = fresh
        return fresh


def _intact(directory: Path, files: dict[str, bytes]) -> bool:
    """`directory` is a real directory of this user, closed to others, holding exactly `files`."""
    try:
        info = os.lstat(directory)
        if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077
                or sorted(os.listdir(directory)) != sorted(files)):
            return False
        for name, content in files.items():
            fd = os.open(os.path.join(directory, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode) or os.read(fd, len(content) + 1) != content:
                    return False
            finally:
                os.close(fd)
    except OSError:
        return False
    return True


def _remove(directory: Path) -> None:
    remove_tree(directory)  # never through a link; opens the sealed folder to empty it


@atexit.register
def _cleanup() -> None:
    current = _prepared.pop(os.getpid(), None)
    others = [_prepared_other.pop(k) for k in list(_prepared_other) if k[0] == os.getpid()]
    for folder in [current, *others]:
        if folder is not None:
            _remove(folder)
