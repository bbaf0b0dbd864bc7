"""The harness-side guard directory of ``{pytest}`` checks: the guard plugin and an empty ``pytest.ini``.

A pytest check imports the guard from this directory (it is the check's ``PYTHONPATH``) and reads its
configuration from the ini in it (``-c``), so whatever lies in it runs before any submission code. Under
bubblewrap it is prepared once per process in a private (0700) temporary directory and bound
read-only into each check's view; `guard_dir` re-reads it before every use and re-creates it
elsewhere when anything differs from what the harness would write -- an extra entry (a planted
``pytest.py`` would shadow pytest), a link, a changed byte -- so no check can run with a guard another
process altered. Without bubblewrap nothing can be bound read-only, so `write_guard_files` gives every
check its own copy in its scratch folder.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from reqbench.core.checks.models import GUARD_DIR, GUARD_MODULE

INI_NAME = "pytest.ini"
INI_TEXT = b"[pytest]\n"
"""Harness-side pytest configuration: nothing of the workspace's configuration is read."""

PREFIX = "reqbench-guard-"
"""Guard directories are ``<tmp>/reqbench-guard-<pid>-<random>``: a process that ended without its exit
handlers (a forked worker, a kill) leaves its own behind, and the next process to prepare one removes it."""

_lock = threading.Lock()
_prepared: dict[int, Path] = {}
"""Process id -> its guard directory (a forked child prepares its own: the parent removes its copy)."""


def guard_files() -> dict[str, bytes]:
    """File name -> content of the guard directory, as the harness writes it (the plugin's source is
    re-read whenever its file changed)."""
    source = GUARD_DIR / f"{GUARD_MODULE}.py"
    info = os.stat(source)
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return dict(_files_of(source, key))


@lru_cache(maxsize=2)
def _files_of(source: Path, signature: tuple[int, ...]) -> dict[str, bytes]:
    """The guard files made from `source` as it is while its stat `signature` holds (the cache key)."""
    return {f"{GUARD_MODULE}.py": source.read_bytes(), INI_NAME: INI_TEXT}


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


def guard_dir() -> Path:
    """This process's shared guard directory, verified against `guard_files` now (re-created if it is
    not exactly what the harness wrote). Only for a read-only bind: never hand it to a process that
    can write the host's files."""
    files = guard_files()
    with _lock:
        current = _prepared.get(os.getpid())
        if current is not None and _intact(current, files):
            return current
        if current is not None:
            _remove(current)
        _sweep_stale()
        fresh = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        fresh.rmdir()
        write_guard_files(fresh, files, seal=True)
        _prepared[os.getpid()] = fresh
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
    try:
        if directory.is_symlink() or not directory.is_dir():
            directory.unlink()
            return
        directory.chmod(0o700)
    except OSError:
        pass
    shutil.rmtree(directory, ignore_errors=True)


def _sweep_stale() -> None:
    """Remove this user's guard directories whose process is gone."""
    top = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(top) if n.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(PREFIX):].partition("-")[0]
        path = Path(top) / name
        try:
            if not pid.isdigit() or int(pid) == os.getpid() or os.lstat(path).st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _remove(path)
        except OSError:
            continue


@atexit.register
def _cleanup() -> None:
    current = _prepared.pop(os.getpid(), None)
    if current is not None:
        _remove(current)
