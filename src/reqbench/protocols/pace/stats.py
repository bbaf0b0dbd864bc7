"""The dataset-statistics tables of a PACE suite (PACE-Bench §2 "The resulting suite" and Figure 3),
computed from its files.

`reqbench stats` prints them (`PaceProtocol.dataset_stats`):

* **cases**: per case the files and lines its reference patch changes and its Code Points and criteria
  (`sizes.case_size`);
* **scale** (Figure 3): changed files, changed lines, Code Points and criteria per case as count, mean
  and quartiles (the paper: median 1,465 changed lines across 15 files);
* **Code Point types** and **Code Point provenance**: each kind's (behavior, integration, ...) and each
  provenance's (explicit, derived, implicit) count and share of all Code Points.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from reqbench.core.stats.distribution import shares, spread
from reqbench.core.summary import Cell, Summary, Table
from reqbench.protocols.pace.case import Case, load_suite
from reqbench.protocols.pace.sizes import CaseSize, case_size

CASES, SCALE = "cases (PACE-Bench §2)", "scale per case (Figure 3)"
TYPES, PROVENANCE = "Code Point types", "Code Point provenance"


def _cases(sizes: list[CaseSize]) -> Table:
    return Table(CASES, {s.case: {"files": s.files, "+lines": s.added, "-lines": s.removed,
                                  "changed lines": s.changed, "Code Points": s.points, "criteria": s.criteria}
                         for s in sizes})


def _scale(sizes: list[CaseSize]) -> Table:
    return Table(SCALE, {"changed files": spread([s.files for s in sizes]),
                         "changed lines": spread([s.changed for s in sizes]),
                         "Code Points": spread([s.points for s in sizes]),
                         "criteria": spread([s.criteria for s in sizes])})


def dataset_stats(path: Path) -> Summary:
    """The tables of the suite (or single case) at `path`."""
    cases: list[Case] = load_suite(Path(path))[1]
    sizes = [case_size(c) for c in cases]
    points = [p for c in cases for p in c.points]
    overview: dict[str, Cell] = {
        "cases": len(cases), "Code Points": len(points), "criteria": sum(s.criteria for s in sizes),
        "median changed lines": spread([s.changed for s in sizes])["median"],
        "median changed files": spread([s.files for s in sizes])["median"]}
    return Summary(overview=overview, tables=[
        _cases(sizes), _scale(sizes), Table(TYPES, shares(Counter(p.kind for p in points))),
        Table(PROVENANCE, shares(Counter(str(p.provenance) for p in points)))])
