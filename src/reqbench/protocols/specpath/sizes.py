"""How big a family is, computed from its files: what the reference patch touches and what is probed.

Used by the real-suite demo and its test to print sizes next to scores (files and lines the reference
touches, probes, atoms, histories), so a suite's scale is stated from the artefacts, never by hand.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from reqbench.core.workspace.pypi_diff import touched
from reqbench.protocols.specpath.family import Family

_TEST_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def test_", re.M)


@dataclass(frozen=True)
class FamilySize:
    family: str
    files: int
    """Files the reference patch touches."""
    added: int
    removed: int
    probes: int
    """Probe ids of the verifier (signature length)."""
    probe_cases: int
    """Test functions and test methods in the hidden probe files (parametrised cases count once)."""
    atoms: int
    histories: int

    @property
    def lines(self) -> int:
        return self.added + self.removed

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "lines": self.lines}


def family_size(family: Family) -> FamilySize:
    files, added, removed = touched(family.patch_text(family.spec.reference_patch))
    cases = sum(len(_TEST_DEF.findall(p.read_text(encoding="utf-8")))
                for p in sorted(family.hidden_dir.rglob("test_*.py")))
    return FamilySize(family.id, len(set(files)), added, removed, len(family.probes), cases,
                      len(family.atoms), len(family.histories))
