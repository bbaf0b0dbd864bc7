"""`real_path`: the absolute path the kernel resolves a name to, in three system calls.

``os.path.realpath`` walks a path one component at a time in Python (an lstat and string work for each
component, several per row on the launch path). Opening the path with ``O_PATH`` and reading
``/proc/self/fd/N`` back asks the kernel, which has already resolved every link on the way. Where that
cannot answer (no ``/proc``, a missing or deleted path) `real_path` falls back to ``os.path.realpath``,
so its answer is always realpath's.
"""

from __future__ import annotations

import os


def kernel_name(path: str | os.PathLike[str]) -> str | None:
    """The absolute path the kernel resolved existing `path` to (links followed), or None where it cannot say."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        named = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)
    return named if named.startswith("/") and not named.endswith(" (deleted)") else None


def real_path(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath(path)``, asked of the kernel where it can answer."""
    named = kernel_name(path)
    return named if named is not None else os.path.realpath(path)
