"""The permissions of what reqbench writes for the user: what the user's umask allows, as any tool's output.

`tempfile.mkstemp` and `tempfile.mkdtemp` create 0600 files and 0700 folders whatever the umask. That
is right for scratch an agent or a check must not share (`core.execute.scratch`, the check guard, the
sandbox's state folders) and wrong for outputs built beside their final place and renamed into it: a
report, an export, a run directory or a built suite would end up readable by its owner only. Such
writers call `as_umask_allows` on the temporary file or folder before the rename.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

_LOCK = threading.Lock()


def umask() -> int:
    """The process's umask, read without changing it where the kernel reports it (Linux >= 4.7)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _LOCK:  # elsewhere: set and restore (briefly process-wide, hence the lock)
        current = os.umask(0o022)
        os.umask(current)
    return current


def as_umask_allows(target: int | str | Path, *, directory: bool = False) -> None:
    """Give `target` (an open descriptor or a path) the mode a plain ``open``/``mkdir`` would have given it:
    0666 (files) or 0777 (folders) less the umask."""
    mode = (0o777 if directory else 0o666) & ~umask()
    if isinstance(target, int):
        os.fchmod(target, mode)
    else:
        os.chmod(target, mode)
