"""`iter_suite_environments`: every ``environment:`` block a suite declares, with where it came from."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.environments.model import EnvironmentSpec


@dataclass(frozen=True)
class DeclaredEnvironment:
    """One environment block of a suite: the spec, the file it is in (for messages) and its folder."""

    spec: EnvironmentSpec
    origin: str
    base_dir: Path


def iter_suite_environments(suite_path: Path) -> Iterator[DeclaredEnvironment]:
    raise NotImplementedError
