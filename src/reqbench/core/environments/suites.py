"""`iter_suite_environments`: every ``environment:`` block a suite declares, with where it came from.

Protocols know where their task files are; each may register a scanner (`register_scanner`) that yields
its blocks. Without one for a suite, every ``*.yaml``/``*.yml`` file below the suite folder whose top level
is a mapping with an ``environment`` key contributes that block (and a file named ``environment.yaml`` is
itself a block). Blocks are validated as they are read (`load_environment`); the same block declared twice
from one folder is yielded once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.environments.model import EnvironmentSpec, load_environment
from reqbench.core.hashing import canonical_json
from reqbench.core.inputfiles import read_yaml


@dataclass(frozen=True)
class DeclaredEnvironment:
    """One environment block of a suite: the spec, the file it is in (for messages) and its folder."""

    spec: EnvironmentSpec
    origin: str
    base_dir: Path


SuiteScanner = Callable[[Path], Iterable[DeclaredEnvironment] | None]
"""Yields a suite's blocks, or returns None when the suite is not of its protocol."""
_SCANNERS: list[SuiteScanner] = []


def register_scanner(scanner: SuiteScanner) -> SuiteScanner:
    """Add a protocol's scanner (usable as a decorator)."""
    _SCANNERS.append(scanner)
    return scanner


def read_environment_file(path: Path) -> DeclaredEnvironment:
    """An environment file: either the block itself or a mapping with an ``environment`` key."""
    data = read_yaml(path)
    if isinstance(data, dict) and set(data) == {"environment"}:
        data = data["environment"]
    return DeclaredEnvironment(load_environment(data, origin=str(path), base_dir=path.parent), str(path), path.parent)


def _scan_yaml(suite: Path) -> Iterator[DeclaredEnvironment]:
    files = [suite] if suite.is_file() else sorted(
        p for pattern in ("*.yaml", "*.yml") for p in suite.rglob(pattern)
        if not any(part.startswith(".") for part in p.relative_to(suite).parts))
    for path in files:
        if path.stem == "environment":
            yield read_environment_file(path)
            continue
        data = read_yaml(path)
        if isinstance(data, dict) and isinstance(data.get("environment"), dict):
            spec = load_environment(data["environment"], origin=str(path), base_dir=path.parent)
            yield DeclaredEnvironment(spec, str(path), path.parent)


def iter_suite_environments(suite_path: Path) -> Iterator[DeclaredEnvironment]:
    """Every distinct environment block of the suite at `suite_path` (folder or file)."""
    suite = Path(suite_path)
    found: Iterable[DeclaredEnvironment] | None = None
    for scanner in _SCANNERS:
        found = scanner(suite)
        if found is not None:
            break
    seen: set[tuple[str, str]] = set()
    for declared in found if found is not None else _scan_yaml(suite):
        ident = (canonical_json(declared.spec.model_dump(mode="json")), str(declared.base_dir.resolve()))
        if ident not in seen:
            seen.add(ident)
            yield declared
