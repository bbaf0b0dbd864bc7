"""Checked extraction of zip and tar archives into a source tree.

Every member is checked *before* anything is written; one bad member rejects the whole archive with an
`InputError` naming the archive and the member. Rejected: absolute paths, ``..`` components, ``.git``
entries (repository metadata may hide history), symlinks or hard links whose target leaves the tree,
and device files / FIFOs. When every member sits below one top-level directory (the usual shape of
release archives and sdists) that directory becomes the root.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reqbench.core.errors import InputError
from reqbench.core.workspace.trees import remove_tree

if TYPE_CHECKING:
    import tarfile
    import zipfile

TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
ARCHIVE_SUFFIXES = (".zip", *TAR_SUFFIXES)


def is_archive_name(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


@dataclass(frozen=True)
class _Member:
    name: str
    kind: str  # dir | file | symlink | hardlink
    mode: int
    link: str = ""


def _normalise(archive: Path, raw: str) -> str:
    """The member's relative POSIX path, or an InputError for absolute / traversing / .git names."""
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise InputError("absolute path in archive", file=str(archive), item=raw)
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise InputError("path traversal ('..') in archive", file=str(archive), item=raw)
    if ".git" in parts:
        raise InputError("archive contains a .git entry (repository metadata is not accepted)",
                         file=str(archive), item=raw)
    return "/".join(parts)


def _check_link(archive: Path, member: _Member) -> None:
    """Symlink targets resolve relative to the member's directory; hard links relative to the root."""
    target = member.link.replace("\\", "/")
    if target.startswith("/"):
        raise InputError(f"link to absolute path {target!r} leaves the tree", file=str(archive),
                         item=member.name)
    base = posixpath.dirname(member.name) if member.kind == "symlink" else ""
    resolved = posixpath.normpath(posixpath.join(base, target))
    if resolved == ".." or resolved.startswith("../"):
        raise InputError(f"link target {target!r} leaves the tree", file=str(archive), item=member.name)
    if ".git" in resolved.split("/"):
        raise InputError("link into a .git entry", file=str(archive), item=member.name)


def _tar_members(archive: Path, tf: tarfile.TarFile) -> list[tuple[_Member, tarfile.TarInfo]]:
    out = []
    for info in tf.getmembers():
        name = _normalise(archive, info.name)
        if info.isdir():
            kind = "dir"
        elif info.isreg():
            kind = "file"
        elif info.issym():
            kind = "symlink"
        elif info.islnk():
            kind = "hardlink"
        else:
            raise InputError("device, FIFO or other special file in archive", file=str(archive),
                             item=info.name)
        member = _Member(name, kind, info.mode, info.linkname)
        if kind == "hardlink":
            member = _Member(name, kind, info.mode, _normalise(archive, info.linkname))
        if kind in ("symlink", "hardlink"):
            _check_link(archive, member)
        if name:
            out.append((member, info))
    return out


def _zip_members(archive: Path, zf: zipfile.ZipFile) -> list[tuple[_Member, zipfile.ZipInfo]]:
    out = []
    for info in zf.infolist():
        name = _normalise(archive, info.filename)
        mode = info.external_attr >> 16
        if info.is_dir():
            kind = "dir"
        elif stat.S_ISLNK(mode):
            kind = "symlink"
        elif stat.S_IFMT(mode) == 0 or stat.S_ISREG(mode):
            kind = "file"
        else:
            raise InputError("device, FIFO or other special file in archive", file=str(archive),
                             item=info.filename)
        link = zf.read(info).decode("utf-8", "surrogateescape") if kind == "symlink" else ""
        member = _Member(name, kind, mode, link)
        if kind == "symlink":
            _check_link(archive, member)
        if name:
            out.append((member, info))
    return out


def _strip_prefix(members: list[_Member]) -> str:
    """The single top-level directory every member lives below, or '' when there is none."""
    tops = {m.name.split("/", 1)[0] for m in members}
    if len(tops) != 1:
        return ""
    top = next(iter(tops))
    if any(m.name == top and m.kind != "dir" for m in members):
        return ""
    if not any("/" in m.name for m in members):
        return ""
    return top + "/"


def _place(root: Path, prefix: str, name: str) -> Path | None:
    if prefix:
        if name + "/" == prefix:
            return None
        name = name[len(prefix):]
    return root.joinpath(*name.split("/"))


def extract_archive(archive: Path, dest: Path) -> None:
    """Check every member of `archive`, then extract it into the new directory `dest`.

    Raises `InputError` (naming archive and member) for unsafe or unreadable archives; nothing is
    written for a rejected archive.
    """
    import tarfile  # only when an archive is extracted: a suite of plain folders never loads them
    import zipfile

    archive = Path(archive)
    if not archive.is_file():
        raise InputError("archive not found", file=str(archive))
    lower = archive.name.lower()
    if not lower.endswith(ARCHIVE_SUFFIXES):
        raise InputError(f"unknown archive type (expected one of {', '.join(ARCHIVE_SUFFIXES)})",
                         file=str(archive))
    dest.mkdir(parents=True, exist_ok=False)
    prefix = ""
    try:
        if lower.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                zmembers = _zip_members(archive, zf)
                prefix = _strip_prefix([m for m, _ in zmembers])
                for member, zinfo in zmembers:
                    _write(dest, prefix, member, lambda zi=zinfo: zf.read(zi))
        else:
            with tarfile.open(archive) as tf:
                tmembers = _tar_members(archive, tf)
                prefix = _strip_prefix([m for m, _ in tmembers])
                for member, tinfo in tmembers:
                    _write(dest, prefix, member, lambda ti=tinfo: _tar_read(tf, ti))
        _check_extracted_links(archive, dest, prefix)
    except InputError as exc:
        if exc.file is None:
            exc = InputError(exc.rule, file=str(archive), item=exc.item)
        _discard(dest)
        raise exc from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        _discard(dest)
        raise InputError(f"unreadable archive ({exc})", file=str(archive)) from None


def _discard(dest: Path) -> None:
    if dest.exists():
        remove_tree(dest)


def _inside(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)


def _check_extracted_links(archive: Path, root: Path, prefix: str) -> None:
    """Lexical checks cannot see link chains (``a -> b/..`` with ``b -> ..``): resolve every link."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink() and not _inside(root, path):
                rel = prefix + path.relative_to(root).as_posix()
                raise InputError("symlink resolves outside the tree", file=str(archive), item=rel)


def _tar_read(tf: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    fh = tf.extractfile(info)
    return fh.read() if fh is not None else b""


def _write(root: Path, prefix: str, member: _Member, read) -> None:  # type: ignore[no-untyped-def]
    target = _place(root, prefix, member.name)
    if target is None:
        return
    if member.kind == "dir":
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if not _inside(root, target.parent):
        raise InputError("member is written through a symlink that leaves the tree", item=member.name)
    if target.is_symlink() or target.exists():
        target.unlink()
    if member.kind == "symlink":
        os.symlink(member.link, target)
    elif member.kind == "hardlink":
        source = _place(root, prefix, member.link)
        if source is None or not source.is_file() or source.is_symlink():
            raise InputError("hard link to a member that is not an earlier regular file",
                             item=member.name)
        target.write_bytes(source.read_bytes())  # a copy: links inside a workspace are never shared
        os.chmod(target, source.stat().st_mode & 0o777)
    else:
        target.write_bytes(read())
        mode = member.mode & 0o777
        os.chmod(target, (mode or 0o644) | 0o600)
