"""Build once, atomically, under ``<cache>/environments/<key>/`` (work in progress)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reqbench.core.environments.model import BuiltEnvironment, EnvironmentSpec


def ensure_built(spec: EnvironmentSpec, base_dir: Path, *, cache: Path | None = None,
                 progress: Callable[[str], None] | None = None) -> BuiltEnvironment:
    raise NotImplementedError


def find_built(key: str, *, cache: Path | None = None) -> BuiltEnvironment | None:
    raise NotImplementedError
