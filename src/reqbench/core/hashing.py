"""Canonical JSON and sha256, exactly as ReqMemBench writes and fingerprints its artifacts.

* files: ``json.dumps(v, ensure_ascii=False, indent=2) + "\\n"`` (UTF-8, LF, no BOM);
* content hash: sha256 of ``json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``;
* CRLF file hash: the released pipeline hashed Windows checkouts, so recorded file hashes equal
  sha256 of the LF text with ``\\n`` replaced by ``\\r\\n`` (reference FORMAT.md §0).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from reqbench.core.filemodes import as_umask_allows


def canonical_json(value: Any) -> str:
    """The canonical, key-sorted, compact JSON text used for content hashes."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def sha256_json(value: Any) -> str:
    """sha256 hex digest of `canonical_json(value)`."""
    return sha256_text(canonical_json(value))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def crlf_sha256(text: str) -> str:
    """Hash of an LF text as the Windows-checkout pipeline recorded it (``\\n`` -> ``\\r\\n``)."""
    return sha256_text(text.replace("\r\n", "\n").replace("\n", "\r\n"))


def pretty_json(value: Any) -> str:
    """The file form of a JSON artifact: indent 2, non-ASCII kept, trailing newline."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def read_json(path: Path) -> Any:
    """Read a JSON file (``utf-8-sig`` tolerates a BOM, as the original readers did)."""
    with open(path, encoding="utf-8-sig") as fh:
        return json.load(fh)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (temp file in the same directory, fsync, rename), with the mode the
    umask allows (`core.filemodes`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        as_umask_allows(fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, value: Any) -> None:
    """Atomically write `value` in the pretty file form."""
    atomic_write_text(path, pretty_json(value))
