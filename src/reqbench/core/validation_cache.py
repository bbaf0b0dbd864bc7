"""Passing verdicts of slow suite checks, remembered under their content address.

`validate` runs real checks (takeover admission gates, a SpecPath family's reference through its
verifier). Their inputs are files, so a verdict is a function of content: `ValidationCache` remembers the
keys that *passed*, one empty file each under ``$REQBENCH_CACHE/<name>/`` (`cache_root`, which the sandbox
hides from agents and checks, so nothing under test can plant a verdict). Only passes are kept: a
problem is checked again on every validation, so a fixed suite or environment is seen at once. A key must
cover every input of the check, the reqbench version and the interpreter the check runs with.
"""

from __future__ import annotations

import re
from pathlib import Path

from reqbench.core.hashing import atomic_write_text
from reqbench.core.workspace import cache_root

_KEY = re.compile(r"[0-9a-f]{64}")


class ValidationCache:
    """Content keys (sha256 hex) whose check passed, in the folder ``cache_root() / name``."""

    def __init__(self, name: str) -> None:
        self.folder = cache_root() / name

    def _file(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a sha256 content key: {key!r}")
        return self.folder / f"{key}.json"

    def passed(self, key: str) -> bool:
        return self._file(key).is_file()

    def record_pass(self, key: str) -> None:
        """Remember that `key` passed; a cache that cannot be written (``$REQBENCH_CACHE`` a file, a full or
        read-only disk) remembers nothing and the check simply runs again next time."""
        path = self._file(key)
        try:
            atomic_write_text(path, "[]")
        except OSError:
            pass
