"""`exclusive`: one process at a time in a folder (a run directory, a study), by ``fcntl.flock`` on a lock file.

The kernel drops the lock when the holder dies (even by SIGKILL), so a killed run or study never blocks its
own ``--resume``; a second process is refused at once with one clear sentence (`InputError`)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reqbench.core.errors import InputError


@contextmanager
def exclusive(lock_file: Path, busy: str, *, owner: Path) -> Iterator[None]:
    """Hold `lock_file` for the block; `busy` is the error when another process holds it (names `owner`)."""
    with open(lock_file, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise InputError(busy, file=str(owner)) from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
