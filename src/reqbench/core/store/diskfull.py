"""`is_disk_full`: whether an error (or one it was raised from) says the file system is out of space.

A run directory's disk can fill mid-run: an artifact write fails with ``ENOSPC``, or SQLite answers
``SQLITE_FULL`` ("database or disk is full") and rolls its transaction back. Either way every stored
attempt is intact (attempts are stored whole, in one transaction), so the CLI says so in one sentence with
the command that continues the run, instead of a traceback or a claim that the database is corrupt.
"""

from __future__ import annotations

import errno
import sqlite3

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
"""No space left on the device; disk quota exceeded."""


def _full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in FULL_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
    return False


def is_disk_full(exc: BaseException | None) -> bool:
    """True when `exc`, or an error in its cause/context chain, is a full file system or quota."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if _full(exc):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False
