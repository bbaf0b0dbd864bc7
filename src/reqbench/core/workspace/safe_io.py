"""Reading and writing files in folders an agent can write, without following its symlinks.

The harness runs outside the sandbox (often as root). Any file below a folder the agent could write (its
workspace, a preset's scratch folder, a tree built from its submission) may have been replaced by a
symlink -- to ``/proc/self/environ`` (the harness's own secrets), to ``/etc/shadow``, to a file the
harness would then overwrite -- or by a FIFO that blocks a reader forever. So:

* `read_regular` reads only a regular file reached without any symlink below `root`, capped in size;
* `write_private` replaces whatever is at a path (symlink, FIFO, directory) by a new regular file,
  never writing through a link.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

DEFAULT_LIMIT = 50_000_000


class UnsafePath(OSError):
    """The path crosses a symlink, is not a regular file, or lies outside its root."""


def read_regular(path: Path, *, root: Path, limit: int = DEFAULT_LIMIT) -> bytes:
    """The bytes (at most `limit`) of the regular file `path`, which must lie below `root` with no symlink
    on the way (`root` itself is the harness's and may be anything); `UnsafePath` otherwise."""
    root, path = Path(os.path.abspath(root)), Path(os.path.abspath(path))
    try:
        rel = path.relative_to(root)
    except ValueError:
        raise UnsafePath(f"{path} is outside {root}") from None
    if not rel.parts:
        raise UnsafePath(f"{path} is the root itself")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in rel.parts[:-1]:
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise UnsafePath(f"{path}: {part!r} is not a plain directory ({exc.strerror})") from None
            os.close(fd)
            fd = nxt
        try:
            leaf = os.open(rel.parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        except OSError as exc:
            raise UnsafePath(f"{path}: not a plain file ({exc.strerror})") from None
        try:
            if not stat.S_ISREG(os.fstat(leaf).st_mode):
                raise UnsafePath(f"{path} is not a regular file")
            chunks, left = [], limit
            while left > 0 and (chunk := os.read(leaf, min(left, 1 << 20))):
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)
        finally:
            os.close(leaf)
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes | str, *, mode: int = 0o644) -> None:
    """Write `data` to a new regular file at `path`, first removing whatever the agent may have put there
    (a symlink is removed, never followed). The parent must be a folder the harness created."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if path.is_symlink() or path.exists():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
