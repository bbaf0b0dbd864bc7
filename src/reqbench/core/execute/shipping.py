"""A suite as a content-addressed tarball, so rows reach workers that share no file system with the driver.

The driver packs the suite once per run invocation (`pack_suite`: the files `core.workspace.trees` calls
content, in sorted order, with normalised owners and times, so equal content gives equal bytes and the
same digest) and hands the bytes to the executor's object store. A worker unpacks them once into
``$REQBENCH_CACHE/suites/<digest>/<suite name>`` (`unpack_suite`): a directory appears there only complete
(unpacked beside it, then renamed), so workers racing on one machine and killed workers leave no half
suite behind, and every later row on that machine reuses it.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.cache_location import cache_root
from reqbench.core.workspace.trees import walk_tree


def pack_suite(suite: Path) -> tuple[str, bytes]:
    """``(sha256 of the tarball, tarball bytes)`` of `suite`'s content (gzip, deterministic)."""
    import gzip  # here and in `unpack_suite`: only a remote run ships its suite, a local one never loads them
    import tarfile

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in walk_tree(Path(suite)):
            info = tarfile.TarInfo(entry.relpath)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if entry.kind == "link":
                info.type, info.linkname = tarfile.SYMTYPE, os.readlink(entry.path)
                tar.addfile(info)
                continue
            info.size = os.path.getsize(entry.path)
            info.mode = 0o755 if entry.executable else 0o644
            with open(entry.path, "rb") as fh:
                tar.addfile(info, fh)
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(raw.getvalue())
    data = out.getvalue()
    return hashlib.sha256(data).hexdigest(), data


def unpack_suite(digest: str, name: str, data: bytes | None = None, *, fetch: Any = None,
                 root: Path | None = None) -> Path:
    """The suite `digest` unpacked under `root` (default ``$REQBENCH_CACHE/suites``), unpacking `data` (or
    ``fetch()``'s bytes, called only when the suite is not there yet) when needed."""
    import tarfile

    base = (root or cache_root() / "suites") / digest
    suite = base / name
    if suite.is_dir():
        return suite
    blob = data if data is not None else fetch()
    if hashlib.sha256(blob).hexdigest() != digest:
        raise ValueError(f"suite tarball does not match its digest {digest[:12]}")
    base.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", base.parent, hidden=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            tar.extractall(tmp / name, filter="data")
        try:
            os.rename(tmp, base)
        except OSError:
            if not suite.is_dir():  # the rename lost against nothing complete: a real failure
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return suite


@dataclass(frozen=True)
class ShippedSuite:
    """What a remote row carries instead of the driver's suite path: digest, name and a handle on the
    tarball in the executor's object store (resolved only on a machine that lacks the suite)."""

    digest: str
    name: str
    blob: Any
    """`core.execute.executor.Shared` holding the tarball bytes."""

    def path(self) -> Path:
        return unpack_suite(self.digest, self.name, fetch=self.blob.get)
