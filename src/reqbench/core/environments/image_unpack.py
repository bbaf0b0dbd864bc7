"""Unpacking image layers into a root file system, bottom layer first, with no daemon (DESIGN §14).

Each layer tar (plain or gzip) is read once, in order (`tarstream`); the sha256 of its uncompressed bytes
must equal the image config's ``diff_id`` (a layer that does not match its digest is refused). Whiteouts are honoured:
``DIR/.wh.NAME`` removes ``DIR/NAME`` of the lower layers, ``DIR/.wh..wh..opq`` empties ``DIR`` of everything
the lower layers put there. Safety: member names may not be absolute or climb with ``..``; a symbolic link
met on the way to a member is followed *inside the root* (as the kernel would with the root as ``/``), so
nothing is ever written outside the root; a hard link may only name a file inside it. Device nodes are not
created (the sandbox brings its own ``/dev``); set-user-ID and set-group-ID bits are dropped.
"""

from __future__ import annotations

import os
import shutil
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from reqbench.core.environments.image_source import ImageReader, image_layers
from reqbench.core.environments.tarstream import Member, RegionSource, Source, StreamSource, TarError, members
from reqbench.core.errors import InputError

_WHITEOUT = ".wh."
_OPAQUE = ".wh..wh..opq"
_MAX_HOPS = 40
_T = TypeVar("_T")


def unpack_image(location: Path, dest: Path, *, origin: str) -> int:
    """Unpack the image at `location` (archive file or OCI layout folder) into the empty folder `dest`;
    returns the number of layers."""
    reader = ImageReader(location, origin)
    try:
        layers = image_layers(reader)
        for index, ref in enumerate(layers):
            with reader.region(ref.name) as (fd, offset, size):
                _Layer(dest, origin, f"layer {index + 1} ({ref.name})").apply(fd, offset, size, ref.diff_id)
    finally:
        reader.close()
    return len(layers)


class _Layer:
    def __init__(self, dest: Path, origin: str, label: str) -> None:
        self.dest = os.fspath(dest)
        self.origin = origin
        self.label = label
        self.dirs: dict[str, str] = {}
        """member parent (as written) -> its real relative path; emptied whenever a folder is replaced."""
        self.created: set[str] = set()
        self.dir_modes: list[tuple[str, int, int]] = []
        self.owner = os.geteuid() == 0
        self.ids = (os.geteuid(), os.getegid())
        self.umask = _umask()

    def fail(self, rule: str) -> InputError:
        return InputError(rule, file=self.origin, item=f"environment.image: {self.label}")

    def apply(self, fd: int, offset: int, size: int, diff_id: str | None) -> None:
        head = os.pread(fd, 4, offset)
        if head == b"\x28\xb5\x2f\xfd":
            raise self.fail("is zstd-compressed; save the image with gzip or uncompressed layers")
        src = StreamSource(fd, offset, size) if head[:2] == b"\x1f\x8b" else RegionSource(fd, offset, size)
        try:
            for member in members(src):
                self.member(src, member)
            digest = src.finish()
        except (TarError, zlib.error) as exc:
            raise self.fail(f"cannot be read: {exc}") from exc
        finally:
            src.close()
        if diff_id is not None and f"sha256:{digest}" != diff_id:
            raise self.fail(f"does not match its digest {diff_id}")
        for path, mode, mtime in reversed(self.dir_modes):
            os.chmod(path, mode)
            os.utime(path, ns=(mtime, mtime))

    def relname(self, name: str) -> str:
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if name.startswith("/") or ".." in parts:
            raise self.fail(f"member {name!r} leaves the root")
        return "/".join(parts)

    def parent(self, rel: str, *, create: bool) -> str | None:
        """The real relative path of folder `rel`, links followed inside the root; missing folders are made
        when `create`, else None is returned."""
        if rel in self.dirs:
            return self.dirs[rel]
        queue: list[str] = rel.split("/") if rel else []
        done: list[str] = []
        hops = 0
        while queue:
            part = queue.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            here = "/".join([*done, part])
            full = os.path.join(self.dest, here)
            try:
                st = os.lstat(full)
            except FileNotFoundError:
                if not create:
                    return None
                os.mkdir(full, 0o755)
                done.append(part)
                continue
            if stat.S_ISLNK(st.st_mode):
                hops += 1
                if hops > _MAX_HOPS:
                    raise self.fail(f"too many symbolic links below {rel!r}")
                target = os.readlink(full)
                if target.startswith("/"):
                    done = []
                queue = target.split("/") + queue
            elif stat.S_ISDIR(st.st_mode):
                done.append(part)
            else:
                raise self.fail(f"a member's folder {here!r} is not a folder")
        real = "/".join(done)
        self.dirs[rel] = real
        return real

    def remove(self, real: str) -> None:
        full = os.path.join(self.dest, real)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(full)
        else:
            os.unlink(full)
        self.dirs.clear()

    def purge_lower(self, real: str) -> None:
        """Remove what the lower layers put below folder `real` (opaque folder)."""
        full = os.path.join(self.dest, real)
        with os.scandir(full) as entries:
            for entry in list(entries):
                child = f"{real}/{entry.name}" if real else entry.name
                if child not in self.created:
                    self.remove(child)
                elif entry.is_dir(follow_symlinks=False):
                    self.purge_lower(child)

    def member(self, src: Source, member: Member) -> None:
        rel = self.relname(member.name)
        head, _, base = rel.rpartition("/")
        if not rel or base.startswith(_WHITEOUT) or member.kind not in (b"0", b"5"):
            src.skip(member.size)  # only regular files carry data
        if not rel:
            return
        if base.startswith(_WHITEOUT):
            folder = self.parent(head, create=False)
            if folder is None:
                return
            if base == _OPAQUE:
                self.purge_lower(folder)
            else:
                gone = f"{folder}/{base[len(_WHITEOUT):]}" if folder else base[len(_WHITEOUT):]
                if gone not in self.created:
                    self.remove(gone)
            return
        if member.kind == b"S":
            raise self.fail(f"member {member.name!r} is a sparse file, which is not supported")
        folder = self.parent(head, create=True)
        real = f"{folder}/{base}" if folder else base
        full = os.path.join(self.dest, real)
        mode = member.mode & 0o1777
        if member.kind == b"5":
            try:
                if not stat.S_ISDIR(os.lstat(full).st_mode):
                    self.remove(real)
                    os.mkdir(full, 0o755)
            except FileNotFoundError:
                os.mkdir(full, 0o755)
            self.created.add(real)
            self.dir_modes.append((full, mode, member.mtime_ns))
            self.chown(full, member)
            return
        self.created.add(real)
        if member.kind == b"0":
            self.write_file(src, member, real, full, mode)
        elif member.kind == b"2":
            self.replacing(real, lambda: os.symlink(member.linkname, full))
            self.chown(full, member)
        elif member.kind == b"1":
            target = self.relname(member.linkname)
            thead, _, tbase = target.rpartition("/")
            tfolder = self.parent(thead, create=False)
            source = os.path.join(self.dest, f"{tfolder}/{tbase}" if tfolder else tbase)
            if tfolder is None or not os.path.lexists(source) or os.path.isdir(source):
                raise self.fail(f"hard link {member.name!r} names {member.linkname!r}, no file of the root")
            self.replacing(real, lambda: os.link(source, full, follow_symlinks=False))
        elif member.kind == b"6":
            self.replacing(real, lambda: os.mkfifo(full, mode))

    def replacing(self, real: str, make: Callable[[], _T]) -> _T:
        """`make()` the entry at `real`; what a lower layer left there is removed first (tried only when
        there is one: most members are new)."""
        try:
            return make()
        except FileExistsError:
            self.remove(real)
            return make()

    def write_file(self, src: Source, member: Member, real: str, full: str, mode: int) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = self.replacing(real, lambda: os.open(full, flags, mode & 0o777))
        try:
            src.copy_to(fd, member.size)
            if self.owner and (member.uid, member.gid) != self.ids:  # a new file is already ours
                os.fchown(fd, member.uid, member.gid)
            if mode & ~0o777 or mode & self.umask:  # else the mode given to open() is the mode it has
                os.fchmod(fd, mode)
            os.utime(fd, ns=(member.mtime_ns, member.mtime_ns))
        finally:
            os.close(fd)

    def chown(self, full: str, member: Member) -> None:
        if self.owner and (member.uid, member.gid) != self.ids:
            os.lchown(full, member.uid, member.gid)


def _umask() -> int:
    """This process's umask, read without changing it (``os.umask`` sets it, a race with other threads);
    where it cannot be read, all bits (every file gets an explicit chmod)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o777
