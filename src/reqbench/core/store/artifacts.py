"""Content-addressed blobs of a run (patches, transcripts, logs): ``artifacts/ab/cdef...``.

A blob's name is the sha256 of its bytes, split after two hex digits so no directory grows too large.
Writes are atomic (temp file + rename) and deduplicated: equal bytes are stored once.
"""

from __future__ import annotations

import re
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_bytes, sha256_bytes

_SHA = re.compile(r"^[0-9a-f]{64}$")


class ArtifactStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_of(self, sha256: str) -> Path:
        if not _SHA.match(sha256):
            raise InputError("not a sha256 artifact name", item=sha256)
        return self.root / sha256[:2] / sha256[2:]

    def put(self, data: bytes) -> tuple[str, bool]:
        """Store `data`; returns ``(sha256, newly_written)`` (False when the blob already existed)."""
        sha = sha256_bytes(data)
        path = self.path_of(sha)
        if path.exists():
            return sha, False
        atomic_write_bytes(path, data)
        return sha, True

    def get(self, sha256: str) -> bytes:
        path = self.path_of(sha256)
        if not path.exists():
            raise InputError("artifact missing from the run directory", file=str(path))
        return path.read_bytes()

    def exists(self, sha256: str) -> bool:
        return self.path_of(sha256).exists()

    def discard(self, sha256: str) -> None:
        """Remove a blob written by a transaction that then failed (never one referenced elsewhere)."""
        self.path_of(sha256).unlink(missing_ok=True)
