"""The release's pre-request repository archives (``pre_repo.zip``): inspection, hashes, extraction.

ReqMemBench ships each code environment's starting repository as a zip next to its manifest (paper
B.3; FORMAT.md (g.2)). The released builder and validator accept an archive only when no member has an
absolute or traversing path, no member is a symbolic link or lies in ``.git``, and every CRC is right;
they record two hashes, which `inspect_archive` recomputes:

* ``archive_sha256``: sha256 of the zip file's bytes;
* ``repo_sha256`` (the repository *tree* hash): sha256 over the non-directory members sorted by name,
  each contributing ``name NUL bytes NUL`` (the released ``_archive_tree_hash``).

Beyond the released rules this module also refuses what an archive from outside could use against the
machine that unpacks it: backslashes and drive letters in names, names that repeat (case-insensitively,
so extraction on any file system gives one file per name), special files, encrypted members, and size
bombs (more than `ArchiveLimits.max_members` members or more than `max_total_bytes` decompressed; the
declared sizes are checked first and the bytes actually produced are counted while reading).
Everything is checked before anything is written; `extract_archive` writes nothing for a refused archive.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_file
from reqbench.core.workspace.trees import remove_tree

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int = 100_000
    max_total_bytes: int = 2 << 30  # 2 GiB decompressed


DEFAULT_LIMITS = ArchiveLimits()


@dataclass(frozen=True)
class ArchiveInspection:
    """A checked archive: its problems (one sentence each; [] = safe) and, when safe, its hashes."""

    path: Path
    problems: list[str]
    archive_sha256: str
    tree_sha256: str | None
    file_count: int


def name_problem(name: str) -> str | None:
    """Why a member name is unsafe (None when it is fine)."""
    if "\\" in name:
        return f"backslash in member name {name!r}"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return f"absolute path {name!r}"
    if "\0" in name:
        return f"NUL in member name {name!r}"
    parts = PurePosixPath(name).parts
    if ".." in parts:
        return f"path traversal in {name!r}"
    if any(p.lower() == ".git" for p in parts):
        return f"contains .git ({name!r})"
    return None


def _member_problems(archive: Path, infos: list[zipfile.ZipInfo], limits: ArchiveLimits) -> list[str]:
    problems: list[str] = []
    seen: dict[str, str] = {}
    total = 0
    if len(infos) > limits.max_members:
        problems.append(f"{archive.name}: {len(infos)} members, more than the limit of {limits.max_members}")
    for info in infos:
        name = info.filename
        why = name_problem(name)
        if why is not None:
            problems.append(f"{archive.name}: {why}")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            problems.append(f"{archive.name}: symbolic link {name!r}")
        elif not info.is_dir() and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            problems.append(f"{archive.name}: special file {name!r}")
        if info.flag_bits & 0x1:
            problems.append(f"{archive.name}: encrypted member {name!r}")
        key = name.rstrip("/").lower()
        if key in seen:
            problems.append(f"{archive.name}: member name {name!r} repeats {seen[key]!r}")
        seen.setdefault(key, name)
        total += info.file_size
    if total > limits.max_total_bytes:
        problems.append(f"{archive.name}: declares {total} bytes decompressed, more than the limit of "
                        f"{limits.max_total_bytes}")
    return problems


def _files(infos: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
    return sorted((i for i in infos if not i.is_dir()), key=lambda i: i.filename)


def _chunks(z: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int]) -> Iterator[bytes]:
    """The member's bytes (CRC-checked by zipfile at the end), counted against the shared `budget`."""
    with z.open(info) as fh:
        while chunk := fh.read(_CHUNK):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise _TooLarge(info.filename)
            yield chunk


class _TooLarge(Exception):
    pass


def inspect_archive(archive: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> ArchiveInspection:
    """Check every member of `archive` and compute its hashes (reads every byte once, writes nothing)."""
    archive = Path(archive)
    digest = sha256_file(archive)
    try:
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
            problems = _member_problems(archive, infos, limits)
            files = _files(infos)
            if not files:
                problems.append(f"{archive.name}: the archive holds no file")
            if problems:
                return ArchiveInspection(archive, problems, digest, None, len(files))
            tree = hashlib.sha256()
            budget = [limits.max_total_bytes]
            for info in files:
                tree.update(info.filename.encode("utf-8") + b"\0")
                for chunk in _chunks(z, info, budget):
                    tree.update(chunk)
                tree.update(b"\0")
            return ArchiveInspection(archive, [], digest, tree.hexdigest(), len(files))
    except _TooLarge as exc:
        why = f"decompresses to more than the limit of {limits.max_total_bytes} bytes (at {exc.args[0]!r})"
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, ValueError) as exc:
        why = f"not a readable zip archive ({exc})"  # a bad CRC is a BadZipFile
    except OSError as exc:
        why = f"cannot be read ({exc})"
    return ArchiveInspection(archive, [f"{archive.name}: {why}"], digest, None, 0)


def extract_archive(archive: Path, dest: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> ArchiveInspection:
    """Inspect `archive`, then extract it into the new directory `dest` (built in a temporary sibling and
    renamed into place). `InputError` naming the archive and every problem when it is refused."""
    archive, dest = Path(archive), Path(dest)
    checked = inspect_archive(archive, limits)
    if checked.problems:
        raise InputError("unsafe or unreadable repository archive: " + "; ".join(checked.problems),
                         file=str(archive))
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", dest.parent, hidden=True)
    try:
        tree = hashlib.sha256()
        with zipfile.ZipFile(archive) as z:
            budget = [limits.max_total_bytes]
            for info in _files(z.infolist()):
                target = tmp.joinpath(*PurePosixPath(info.filename).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                tree.update(info.filename.encode("utf-8") + b"\0")
                with open(target, "xb") as out:  # never through an existing entry
                    for chunk in _chunks(z, info, budget):
                        out.write(chunk)
                        tree.update(chunk)
                tree.update(b"\0")
                os.chmod(target, 0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
        if tree.hexdigest() != checked.tree_sha256:
            raise OSError("the archive changed while it was extracted")
        os.rename(tmp, dest)
    except (zipfile.BadZipFile, _TooLarge, OSError) as exc:  # the file changed since it was inspected
        remove_tree(tmp)
        raise InputError(f"repository archive could not be extracted ({exc!r})", file=str(archive)) from None
    except BaseException:
        remove_tree(tmp)
        raise
    return checked
