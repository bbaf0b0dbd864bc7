"""The context a PACE case gives an agent, measured from its files: repository size and PRD length
(PACE-Bench Figure 3 and appendix "Repository and Reference-Change Statistics"; Table 12 "PRD length").

* **Repository size** (the paper: "physical lines in recognized source files, excluding version-control
  metadata, dependencies, and build outputs", over "the readable base snapshots"): every line -- blank and
  comment lines included -- of the base tree's files in a language the L1 index parses
  (`l1.languages.is_source`: Python, JavaScript, TypeScript), skipping the folders in `EXCLUDED_DIRS` and
  ``*.egg-info``; links are neither followed nor counted. A base that cannot be read (a ``pypi:`` source
  neither cached nor reachable) has no size, and the statistics count only the readable ones.
* **PRD length**: the paper names the descriptor without a unit, so both are given: characters (Unicode
  code points of the PRD file's text) and words (runs of non-whitespace).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import ReqbenchError
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import Case
from reqbench.protocols.pace.l1.languages import is_source

EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn",  # version-control metadata
    "node_modules", "bower_components", "vendor", "site-packages", ".venv", "venv", ".tox",  # dependencies
    "build", "dist", "__pycache__", ".mypy_cache", ".pytest_cache", ".next", "coverage",  # build outputs
})


@dataclass(frozen=True)
class ContextSize:
    case: str
    source_files: int | None
    """Recognized source files of the base (None: the base could not be read)."""
    source_lines: int | None
    """Their physical lines (None: the base could not be read)."""
    prd_characters: int
    prd_words: int


def _excluded(name: str) -> bool:
    return name in EXCLUDED_DIRS or name.endswith(".egg-info")


def physical_lines(data: bytes) -> int:
    """Lines as an editor shows them: one per newline, plus a last line without one."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def source_size(tree: Path) -> tuple[int, int]:
    """(files, physical lines) of the recognized source files below `tree`."""
    files = lines = 0
    for folder, dirs, names in os.walk(tree, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not _excluded(d))
        for name in names:
            path = Path(folder) / name
            if is_source(name) and not path.is_symlink() and path.is_file():
                files += 1
                lines += physical_lines(path.read_bytes())
    return files, lines


def context_size(case: Case) -> ContextSize:
    """The case's repository size (its frozen base) and PRD length."""
    measured: tuple[int | None, int | None]
    try:
        measured = source_size(repo.base_tree(case.spec.base, case.dir, case.spec.base_sha256))
    except (ReqbenchError, OSError):
        measured = (None, None)
    return ContextSize(case.id, measured[0], measured[1], len(case.prd), len(case.prd.split()))
