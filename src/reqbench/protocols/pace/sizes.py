"""Sizes of a PACE case computed from its files: the reference patch's changed files and lines, and the
Code Points (paper §2 "The resulting suite": median 1,465 changed lines across 15 files per case).

What the real-suite tests print and assert, and what `make demo-real` tabulates; a ``pypi-diff:``
reference is fetched (and cached) to be measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from reqbench.core.workspace.pypi_diff import touched
from reqbench.protocols.pace.case import Case


@dataclass(frozen=True)
class CaseSize:
    case: str
    files: int
    added: int
    removed: int
    points: int
    criteria: int
    integration_points: int
    """Points of kind integration or registration (where the feature must be wired in)."""

    @property
    def changed(self) -> int:
        return self.added + self.removed


def case_size(case: Case) -> CaseSize:
    files, added, removed = touched(case.reference_patch)
    return CaseSize(case.id, len(files), added, removed, len(case.points),
                    sum(len(p.criteria) for p in case.points),
                    sum(1 for p in case.points if p.kind in ("integration", "registration")))
