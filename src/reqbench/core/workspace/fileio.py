"""Low-level file operations that are safe on a tree an agent controlled: open, read, copy, remove.

Every open is ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat`` to be a regular file, so a symlink
or a FIFO swapped in behind a walk is never followed or waited on; contents are streamed in chunks,
never read whole. Permission problems an agent caused (``chmod 000``) are repaired on the agent's own
tree before giving up; what cannot be read becomes an `AgentWorkspaceError` (the agent's failure).

`read_regular` and `write_private` serve the harness wherever it reads or writes a single file in a folder
the agent could write (a preset's scratch folder, a tree built from a submission): a read reaches only a
regular file with no symlink below its root (never ``/proc/self/environ`` through a planted link), a write
first removes whatever the agent put at the path (never writing through a link as root).

`remove_tree` deletes without recursion and without ever building a path longer than two components
below the root: each subdirectory is first renamed up to the root, so trees deeper than ``PATH_MAX``
and directories with no permissions at all are removed too.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace.limits import show

CHUNK = 1 << 20

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_AGENT_ERRNOS = {errno.ENAMETOOLONG: "path too long", errno.ELOOP: "entry turned into a symlink",
                 errno.ENOENT: "entry vanished while being read", errno.ENOTDIR: "entry changed type",
                 errno.EACCES: "entry is not readable", errno.EPERM: "entry is not readable",
                 errno.ENXIO: "entry is not a regular file"}


def agent_error(exc: OSError, rel: str) -> AgentWorkspaceError | OSError:
    """The `AgentWorkspaceError` an OSError on agent content stands for (or the error itself)."""
    what = _AGENT_ERRNOS.get(exc.errno or 0)
    if what is None:
        return exc
    return AgentWorkspaceError(f"{what}: {show(rel or '.')}")


def _add_mode(path: str | Path, bits: int) -> bool:
    """Add permission `bits` to a directory or file (not a symlink); False when that is impossible."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return False
        os.chmod(path, stat.S_IMODE(st.st_mode) | bits)
        return True
    except OSError:
        return False


def open_regular(path: str | Path, rel: str) -> int:
    """A read-only fd on the regular file `path`; never follows a symlink, never blocks on a FIFO."""
    for attempt in range(2):
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except PermissionError as exc:
            if attempt == 0 and _add_mode(path, stat.S_IRUSR):
                continue
            raise agent_error(exc, rel) from None
        except OSError as exc:
            raise agent_error(exc, rel) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise AgentWorkspaceError(f"entry is not a regular file any more: {show(rel)}")
        return fd
    raise AssertionError("unreachable")


def read_chunks(fd: int, size: int, rel: str) -> Iterator[bytes]:
    """Exactly `size` bytes of `fd` in chunks; a file that grew or shrank is an `AgentWorkspaceError`."""
    left = size
    while left > 0:
        data = os.read(fd, min(CHUNK, left))
        if not data:
            break
        left -= len(data)
        yield data
    if left or os.read(fd, 1):
        raise AgentWorkspaceError(f"file changed while being read: {show(rel)}")


def read_bytes(path: str | Path, rel: str) -> bytes:
    """The whole content of a (small) regular file, read through `open_regular`."""
    fd = open_regular(path, rel)
    try:
        return b"".join(read_chunks(fd, os.fstat(fd).st_size, rel))
    finally:
        os.close(fd)


def copy_file(src: str | Path, dest: str, rel: str, size: int) -> None:
    """Copy exactly `size` bytes of the regular file `src` to the new file `dest` (kernel copy)."""
    fd = open_regular(src, rel)
    try:
        out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            left = size
            try:
                while left > 0:
                    sent = os.sendfile(out, fd, None, min(left, 1 << 30))
                    if not sent:
                        break
                    left -= sent
            except OSError as exc:
                if exc.errno not in (errno.EINVAL, errno.ENOSYS) or left != size:
                    raise
                for data in read_chunks(fd, size, rel):
                    os.write(out, data)
                left = 0
            if left or os.read(fd, 1):
                raise AgentWorkspaceError(f"file changed while being read: {show(rel)}")
        finally:
            os.close(out)
    finally:
        os.close(fd)


def read_link(path: str | Path, rel: str) -> str:
    """A symlink's target text (surrogate-escaped str), never the file it points to."""
    try:
        return os.readlink(path)
    except OSError as exc:
        raise agent_error(exc, rel) from None


def list_dir(path: str, rel: str) -> Iterator[os.DirEntry[str]]:
    """The entries of directory `path`; a directory made unreadable by the agent is made readable."""
    for attempt in range(2):
        try:
            it = os.scandir(path)
        except PermissionError as exc:
            if attempt == 0 and _add_mode(path, stat.S_IRWXU):
                continue
            raise agent_error(exc, rel or ".") from None
        except OSError as exc:
            raise agent_error(exc, rel or ".") from None
        with it:
            yield from it
        return


def remove_tree(path: Path | str) -> None:
    """Remove a file or directory tree, best effort: no recursion, no path longer than root/x/y.

    Directories without permissions are chmod-ed first; symlinks are removed, never followed. Errors on
    single entries are ignored (as before), so a half-removable tree leaves only what cannot go.
    """
    top = os.fspath(path)
    try:
        st = os.lstat(top)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        _ignore(os.unlink, top)
        return
    _add_mode(top, stat.S_IRWXU)
    try:
        root = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    counter = itertools.count()
    try:
        queue = _empty_dir(root, root, counter, hoist=False)
        while queue:
            name = queue.pop()
            try:
                if not stat.S_ISDIR(os.stat(name, dir_fd=root, follow_symlinks=False).st_mode):
                    continue
                _ignore(os.chmod, name, stat.S_IRWXU, dir_fd=root)
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
            except OSError:
                continue
            try:
                queue.extend(_empty_dir(fd, root, counter, hoist=True))
            finally:
                os.close(fd)
            _ignore(os.rmdir, name, dir_fd=root)
    finally:
        os.close(root)
    _ignore(os.rmdir, top)


def _empty_dir(fd: int, root: int, counter: itertools.count[int], *, hoist: bool) -> list[str]:
    """Unlink every non-directory in `fd`; return its subdirectories, renamed up to `root` if `hoist`."""
    subdirs = []
    try:
        entries = list(os.scandir(fd))
    except OSError:
        return []
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if not is_dir:
            _ignore(os.unlink, entry.name, dir_fd=fd)
            continue
        if not hoist:
            subdirs.append(entry.name)
            continue
        _ignore(os.chmod, entry.name, stat.S_IRWXU, dir_fd=fd)  # moving a directory writes its '..'
        for _ in range(100):
            new = f".reqbench-rm-{next(counter)}"
            try:
                os.rename(entry.name, new, src_dir_fd=fd, dst_dir_fd=root)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                    continue
                break
            subdirs.append(new)
            break
    return subdirs


def _ignore(func, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    try:
        func(*args, **kwargs)
    except OSError:
        pass


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
        write_all(fd, data)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
