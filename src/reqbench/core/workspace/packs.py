"""`write_pack`: git objects written as one pack file and its index, instead of one loose file each.

A diff stores a handful of objects (the changed blobs on both sides and the trees leading to them). As
loose objects each costs a directory (``objects/ab/``) and a file; on a busy disk those metadata
operations, and removing them again with the workspace, cost more than the diff itself. A pack is two
files whatever the number of objects. Objects are stored whole (no deltas), zlib level 1, in git's pack
format version 2 with a version 2 index (``Documentation/gitformat-pack.txt``); blob contents are
streamed from their files and checked against their id while they are written.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

BLOB, TREE = 3, 2


@dataclass(frozen=True)
class PackObject:
    """One object: its kind (`BLOB`/`TREE`), id, size, and a callable giving its content in chunks."""

    kind: int
    sha: str
    size: int
    chunks: Callable[[], Iterator[bytes]]
    on_chunk: Callable[[bytes], None] | None = None
    """Sees every chunk written (e.g. a UTF-8 check)."""


class ObjectChanged(Exception):
    """A streamed object's bytes did not hash to its id (the file changed while it was written)."""

    def __init__(self, sha: str) -> None:
        super().__init__(sha)
        self.sha = sha


def _header(kind: int, size: int) -> bytes:
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


class _Writer:
    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.sha = hashlib.sha1(usedforsecurity=False)
        self.offset = 0

    def write(self, data: bytes) -> None:
        self.fh.write(data)
        self.sha.update(data)
        self.offset += len(data)


def write_pack(pack_dir: Path, objects: Iterable[PackObject]) -> Path:
    """Write `objects` (duplicates by id are written once) as ``pack-<id>.pack`` + ``.idx`` in `pack_dir`
    and return the pack's path. Raises `ObjectChanged` (nothing is left behind) when a streamed object
    does not hash to its id."""
    unique = list({o.sha: o for o in objects}.values())
    pack_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=pack_dir, prefix="tmp-pack-")
    entries: list[tuple[bytes, int, int]] = []  # (raw id, crc32, offset)
    try:
        with os.fdopen(fd, "wb") as fh:
            out = _Writer(fh)
            out.write(b"PACK" + struct.pack(">II", 2, len(unique)))
            for obj in unique:
                offset = out.offset
                head = _header(obj.kind, obj.size)
                crc = zlib.crc32(head)
                out.write(head)
                check = hashlib.sha1(b"%s %d\0" % (b"blob" if obj.kind == BLOB else b"tree", obj.size),
                                     usedforsecurity=False)
                zobj = zlib.compressobj(1)
                for chunk in obj.chunks():
                    check.update(chunk)
                    if obj.on_chunk is not None:
                        obj.on_chunk(chunk)
                    data = zobj.compress(chunk)
                    crc = zlib.crc32(data, crc)
                    out.write(data)
                data = zobj.flush()
                crc = zlib.crc32(data, crc)
                out.write(data)
                if check.hexdigest() != obj.sha:
                    raise ObjectChanged(obj.sha)
                entries.append((bytes.fromhex(obj.sha), crc, offset))
            digest = out.sha.digest()
            fh.write(digest)
        name = pack_dir / f"pack-{digest.hex()}"
        os.replace(tmp, name.with_suffix(".pack"))
        _write_index(name.with_suffix(".idx"), entries, digest)  # git finds a pack by its index
        return name.with_suffix(".pack")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_index(path: Path, entries: list[tuple[bytes, int, int]], pack_digest: bytes) -> None:
    entries = sorted(entries)
    fanout = [0] * 256
    for raw, _, _ in entries:
        fanout[raw[0]] += 1
    total = 0
    for i in range(256):
        total += fanout[i]
        fanout[i] = total
    small: list[int] = []
    large: list[int] = []
    for _, _, offset in entries:
        if offset < 0x80000000:
            small.append(offset)
        else:
            small.append(0x80000000 | len(large))
            large.append(offset)
    body = b"".join([b"\xfftOc", struct.pack(">I", 2), struct.pack(">256I", *fanout),
                     *(raw for raw, _, _ in entries), *(struct.pack(">I", crc) for _, crc, _ in entries),
                     *(struct.pack(">I", o) for o in small), *(struct.pack(">Q", o) for o in large), pack_digest])
    body += hashlib.sha1(body, usedforsecurity=False).digest()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="tmp-idx-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(body)
    os.replace(tmp, path)
